// The last passes over a read document (the native and tesseract.js engines, whichever tesseract
// read it): `output=pdfa` through Ghostscript (pdfa-conversion.ts), then, with qpdf, the lossless repack
// (lossless-repack.ts: JPEGs deflated as OCRmyPDF's `--optimize 1`, fonts shared, object streams) and
// qpdf's check of the output. Without qpdf (tesseract.js assembling with pdf-lib) the document is as
// pdf-lib saved it. Options this server cannot honour are refused here, by name, before any work.
import { join } from 'node:path';
import { InvalidInputError } from '../../errors.js';
import type { CpuSlots } from '../cpu-slots.js';
import { verifyQpdfOutput } from '../pdf/run-qpdf.js';
import type { ToolInfo } from '../tools.js';
import type { WorkContext } from '../types.js';
import type { ReadDocument, ReadPlan } from './document-reader.js';
import { repackLosslessly } from './lossless-repack.js';
import { convertToPdfa, srgbProfile } from './pdfa-conversion.js';

export interface FinishOptions {
  cpuSlots: CpuSlots;
  /** Repacks and checks the output; also takes pages out alone (`redo`, `deskew`, `rotate`). */
  qpdf: ToolInfo | undefined;
  /** Writes `output=pdfa`, with an sRGB profile. */
  ghostscript: ToolInfo | undefined;
  /** The page reader has tesseract's orientation data (`rotate`). */
  osd: boolean;
  /** Pages can be drawn (poppler-utils), so they can be turned straight (`deskew`). */
  draws: boolean;
  timeoutMs: number;
}

/** What `output=pdfa` runs, when this machine has it. */
function pdfaTools(o: FinishOptions) {
  const profile = srgbProfile();
  if (o.ghostscript === undefined || profile === undefined) return undefined;
  return { gs: o.ghostscript, profile };
}

/** Options this server cannot honour, refused by name rather than silently ignored. */
export function refuseUnsupported(plan: ReadPlan, o: FinishOptions): void {
  const { request } = plan;
  if (request.output === 'pdfa' && pdfaTools(o) === undefined)
    throw new InvalidInputError(
      'output=pdfa needs Ghostscript and an sRGB ICC profile (Debian ghostscript), which this server does not have.',
    );
  if (request.rotate && !o.osd)
    throw new InvalidInputError(
      "rotate=true needs tesseract's orientation data (osd), which tesseract.js does not bundle: it needs " +
        'OCRmyPDF or the native tesseract, which this server does not have.',
    );
  if (request.deskew && !o.draws)
    throw new InvalidInputError(
      'deskew=true needs poppler-utils to draw the pages it straightens, which this server does not have.',
    );
  const onePage = [
    ...(request.mode === 'redo' ? ['mode=redo'] : []),
    ...(request.deskew ? ['deskew=true'] : []),
  ];
  if (onePage.length > 0 && o.qpdf === undefined)
    throw new InvalidInputError(`${onePage.join(', ')} needs qpdf, which this server does not have.`);
}

export async function finishDocument(
  read: ReadDocument,
  plan: ReadPlan,
  job: WorkContext,
  o: FinishOptions,
): Promise<ReadDocument> {
  const pdfa = plan.request.output === 'pdfa' ? pdfaTools(o) : undefined;
  const timeoutMs = o.timeoutMs * plan.doc.pageCount;
  const written =
    pdfa === undefined
      ? read.path
      : await o.cpuSlots.run(
          () => convertToPdfa(read.path, 'pdfa.pdf', { ...pdfa, timeoutMs }, job),
          job.signal,
        );
  if (o.qpdf === undefined) return { ...read, path: written };
  const run = { qpdf: o.qpdf, cwd: job.workDir, timeoutMs: o.timeoutMs, signal: job.signal };
  const path = join(job.workDir, 'output.pdf');
  await repackLosslessly(written, path, run);
  await verifyQpdfOutput(path, plan.doc.pageCount, run);
  return { ...read, path };
}
