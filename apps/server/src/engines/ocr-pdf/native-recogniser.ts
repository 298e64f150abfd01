// The native tesseract binary reading a page's raster: its `pdf` renderer with
// `textonly_pdf` for the layer, its text, and the TSV the confidence comes from; OSD (`-l osd`, Debian
// `tesseract-ocr-osd`) for the page's orientation.
import { readFile } from 'node:fs/promises';
import { meanWordConfidence } from '../ocr/native-tesseract.js';
import type { ToolInfo } from '../tools.js';
import { type PageToolLimits, runPageTool } from './page-tool.js';
import type { PageRecogniser } from './read-page.js';

/** What every tesseract run of ours writes: the page's PDF layer, its text, and the TSV its confidences come from. */
const TESSERACT_OUTPUTS = [
  '-c',
  'tessedit_create_pdf=1',
  '-c',
  'tessedit_create_txt=1',
  '-c',
  'tessedit_create_tsv=1',
] as const;

/** One thread per tesseract: the pages are the parallel units. */
const ONE_THREAD = { OMP_THREAD_LIMIT: '1' };

export interface NativeRecogniserOptions extends PageToolLimits {
  tesseract: ToolInfo;
  tessdataDir: string;
}

export function nativeRecogniser(o: NativeRecogniserOptions): PageRecogniser {
  return {
    async recognise(raster, base, read, job) {
      await runPageTool(
        o.tesseract,
        [
          raster,
          base,
          '-l',
          job.codes,
          '--dpi',
          String(read.dpi),
          '--tessdata-dir',
          o.tessdataDir,
          '-c',
          `textonly_pdf=${read.textOnly ? 1 : 0}`,
          ...TESSERACT_OUTPUTS,
          ...(read.hocr ? ['-c', 'tessedit_create_hocr=1'] : []),
        ],
        job,
        o,
        ONE_THREAD,
      );
      return meanWordConfidence(await readFile(`${base}.tsv`, 'utf8'));
    },
    async orientation(raster, job) {
      const args = [raster, '-', '--psm', '0', '-l', 'osd', '--tessdata-dir', o.tessdataDir];
      // A page too empty for OSD keeps its orientation, as in OCRmyPDF.
      const osd = await runPageTool(o.tesseract, args, job, o, ONE_THREAD).catch(() => undefined);
      return osd?.stdout;
    },
  };
}
