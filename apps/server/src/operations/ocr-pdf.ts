// OCR of documents (openapi.yaml operation `ocrPdf`): one PDF or image in, a searchable PDF
// and its text out as two downloads, the start of the text inline. The engine judges the file, the
// languages and the pages, and reports progress in pages.
import { open } from 'node:fs/promises';
import type { OcrPdfMode, OcrPdfOutputType, OcrPdfResult } from '@pdn/api-types';
import type { OcrPdfEngine, OcrPdfRequest } from '../engines/ocr-pdf/index.js';
import type { PageBudget } from '../engines/types.js';
import { ocrNames } from './output-names.js';
import { labelled, type Operation, onlyInput } from './types.js';

export interface OcrPdfParams extends OcrPdfRequest {
  /** The pages the caller's plan lets one request read; absent on jobs stored before there was one. */
  budget?: PageBudget | undefined;
}

/** openapi.yaml OcrPdfResult `text`: maxLength. */
export const INLINE_TEXT_LIMIT = 100_000;

export const OCR_PDF_MODES: readonly OcrPdfMode[] = ['skip', 'redo', 'force'];
export const OCR_PDF_OUTPUTS: readonly OcrPdfOutputType[] = ['pdf', 'pdfa'];

/** The first `INLINE_TEXT_LIMIT` characters (code points) of the text file, read no further than needed. */
export async function inlineText(path: string): Promise<{ text: string; truncated: boolean }> {
  const file = await open(path, 'r');
  try {
    // A character is at most 4 bytes in UTF-8: this many bytes hold the limit, plus one to know there is more.
    const room = INLINE_TEXT_LIMIT * 4 + 4;
    const { buffer, bytesRead } = await file.read(Buffer.alloc(room), 0, room, 0);
    const characters = [...buffer.subarray(0, bytesRead).toString('utf8')];
    const truncated =
      characters.length > INLINE_TEXT_LIMIT || (bytesRead === room && characters.length >= INLINE_TEXT_LIMIT);
    return { text: characters.slice(0, INLINE_TEXT_LIMIT).join(''), truncated };
  } finally {
    await file.close();
  }
}

export function ocrPdfOperation(engine: OcrPdfEngine): Operation<OcrPdfParams, OcrPdfResult> {
  return {
    name: 'ocr_pdf',
    async run(inputs, params, work, outputs) {
      const file = onlyInput(inputs);
      const { budget, ...request } = params;
      const output = await engine.ocrPdf(
        labelled(file),
        request,
        { ...work, pagesRead: budget },
        work.progress,
      );
      const names = ocrNames(file.name);
      // Before publishing: publishing moves the file into the output store.
      const { text, truncated } = await inlineText(output.textPath);
      const download = await outputs.publish(output.path, names.pdf);
      const textDownload = await outputs.publish(output.textPath, names.text);
      const ocred = output.pages.filter((page) => page.status === 'ocred').length;
      return {
        filename: names.pdf,
        text_filename: names.text,
        method: output.method,
        output: params.output,
        language: output.language,
        page_count: output.pages.length,
        pages_ocred: ocred,
        pages_skipped: output.pages.length - ocred,
        pages: output.pages.map((page, index) => ({ page: index + 1, ...page })),
        size: output.size,
        text,
        text_truncated: truncated,
        download,
        text_download: textDownload,
      };
    },
    resign: (result, fresh) => ({
      ...result,
      download: fresh(result.download),
      text_download: fresh(result.text_download),
    }),
  };
}
