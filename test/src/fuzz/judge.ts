// What every fuzzed answer must be, whatever was sent: a status the
// contract documents for the operation, with the error envelope when it is not a success (both checked
// by the contract validator the e2e suites use), never a server error, and a server that still answers
// /healthz. A success is judged by its outputs: every PDF it names downloads, is read by another reader
// and has the pages the answer claims (an upload compress hands back as it came must be exactly that
// upload); OCR text is well-formed. Output names carry no control or format
// character and keep at most 100 code points of the upload's name (http/output-names.ts).
import type {
  CompressResponse,
  ImagesToPdfResponse,
  MergeResponse,
  OcrResponse,
  SplitResponse,
} from '@pdn/api-types';
import { expect } from 'vitest';
import type { CallResult } from '../contract/checked-fetch.js';
import { download, pageCount } from '../harness/download.js';
import { poppler, popplerPageCount } from '../harness/pdf-content.js';
import type { ServerContext } from '../harness/use-server.js';

export type Operation = 'compress' | 'merge' | 'split' | 'ocr';
/** What judge() reads: every fuzzed operation, and images to PDF, which only images.test.ts sends. */
export type JudgedOperation = Operation | 'images-to-pdf';

export const OPERATIONS: readonly Operation[] = ['compress', 'merge', 'split', 'ocr'];

export function pathOf(operation: Operation): string {
  return `/api/v1/${operation}`;
}

/** Characters no emitted name may hold. */
const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
/** A surrogate left alone: half a character, which no UTF-8 header or file name can carry. */
const LONE_SURROGATE = /\p{Cs}/u;
/** Suffixes the server adds to the upload's name (openapi.yaml CompressResult, SplitPart). */
const SUFFIX = /\.(compressed|pages-\d+(-\d+)?)\.pdf$/;
const MAX_BASE_CODE_POINTS = 100;

function expectShowableName(name: string): void {
  expect(LONE_SURROGATE.test(name), `${JSON.stringify(name)} holds half a character`).toBe(false);
  expect(UNSHOWABLE.test(name), `${JSON.stringify(name)} holds a control or format character`).toBe(false);
  const base = name.replace(SUFFIX, '');
  expect([...base].length, `${JSON.stringify(name)}: the upload's part is too long`).toBeLessThanOrEqual(
    MAX_BASE_CODE_POINTS,
  );
}

/**
 * The output downloads and a reader other than the server's finds the pages the answer claims:
 * poppler where installed (it reads the damaged files compress may hand back as they came, `method`
 * `original`, which pdf-lib refuses), else pdf-lib.
 */
async function expectPdf(ctx: ServerContext, url: string, pages: number, name: string): Promise<void> {
  const file = await download(ctx, url);
  const count = poppler ? await popplerPageCount(file.bytes) : await pageCount(file.bytes);
  expect(count, `pages of ${name}`).toBe(pages);
}

/** Where the PDF in an upload starts: `%PDF-` within the first 1024 bytes (openapi.yaml, PDF inputs). */
function fromHeader(upload: Uint8Array): Buffer {
  const bytes = Buffer.from(upload);
  const at = bytes.subarray(0, 1024).indexOf('%PDF-');
  return at < 0 ? bytes : bytes.subarray(at);
}

/**
 * Judges one answer of `operation` (already contract-checked by `ctx.call`). `upload` is the PDF a
 * compress was sent: when no method beat it (`original`), the output must be exactly that PDF, from its
 * header on; like the corpus suite, a damaged input handed back untouched has lost nothing, even when
 * no reader opens it (compress returned a file whose /Count 0 hides its one page as it came).
 */
export async function judge(
  ctx: ServerContext,
  operation: JudgedOperation,
  res: CallResult,
  upload?: Uint8Array,
): Promise<void> {
  const said = res.bytes.toString('utf8').slice(0, 500);
  expect(res.status, `a server error: ${said}`).toBeLessThan(500);
  if (res.status !== 200) {
    expect(res.json, `a ${res.status} without the envelope: ${said}`).toMatchObject({
      error: { code: expect.any(String), message: expect.any(String) },
    });
    return;
  }
  switch (operation) {
    case 'compress': {
      const { data } = res.json as CompressResponse;
      expectShowableName(data.filename);
      if (data.method === 'original' && upload !== undefined) {
        const output = await download(ctx, data.download.url);
        expect(output.bytes.equals(fromHeader(upload)), 'original: the upload from its %PDF- on').toBe(true);
        return;
      }
      await expectPdf(ctx, data.download.url, data.page_count, data.filename);
      return;
    }
    case 'merge': {
      const { data } = res.json as MergeResponse;
      await expectPdf(ctx, data.download.url, data.page_count, data.filename);
      return;
    }
    case 'split': {
      for (const part of (res.json as SplitResponse).data.parts) {
        expectShowableName(part.filename);
        await expectPdf(ctx, part.download.url, part.page_count, part.filename);
      }
      return;
    }
    case 'ocr': {
      const { data } = res.json as OcrResponse;
      expect(LONE_SURROGATE.test(data.text), 'OCR text holds half a character').toBe(false);
      return;
    }
    case 'images-to-pdf': {
      const { data } = res.json as ImagesToPdfResponse;
      await expectPdf(ctx, data.download.url, data.page_count, data.filename);
    }
  }
}

/** The server still answers its health check. */
export async function expectHealthy(ctx: ServerContext): Promise<void> {
  const res = await ctx.call('/healthz');
  expect(res.status, 'GET /healthz after the run').toBe(200);
}
