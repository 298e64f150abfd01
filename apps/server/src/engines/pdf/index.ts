// Picks the merge/split engine at start-up ("qpdf when it is installed and pdf-lib when it is
// not; ... overridable by PDN_PDF_ENGINE=auto|qpdf|pdf-lib, and visible in logs").
import type { CpuSlots } from '../cpu-slots.js';
import type { DetectedTools } from '../tools.js';
import type { EngineLog, PdfEngine } from '../types.js';
import { createPdfLibEngine } from './pdf-lib-engine.js';
import { createQpdfEngine } from './qpdf-engine.js';

export interface PdfEngineOptions {
  choice: 'auto' | 'qpdf' | 'pdf-lib';
  tools: DetectedTools;
  cpuSlots: CpuSlots;
  maxPages: number;
  timeoutMs: number;
  log: EngineLog;
}

/** Throws at start-up when qpdf is forced but not installed: better than failing every request. */
export function createPdfEngine(o: PdfEngineOptions): PdfEngine {
  const { qpdf } = o.tools;
  if (o.choice === 'qpdf' && qpdf === undefined) {
    throw new Error(
      'The PDF engine is set to qpdf (PDN_PDF_ENGINE=qpdf), but qpdf was not found on PATH. ' +
        'Install qpdf, or set PDN_PDF_ENGINE to auto or pdf-lib.',
    );
  }
  const engine =
    o.choice !== 'pdf-lib' && qpdf !== undefined
      ? createQpdfEngine({
          qpdf,
          tools: o.tools,
          cpuSlots: o.cpuSlots,
          maxPages: o.maxPages,
          timeoutMs: o.timeoutMs,
        })
      : createPdfLibEngine({ cpuSlots: o.cpuSlots, maxPages: o.maxPages, timeoutMs: o.timeoutMs });
  const line = `PDF engine: ${engine.info.name} ${engine.info.version}`;
  const fields = { choice: o.choice, engine: engine.info.name, version: engine.info.version };
  // A fallback the operator did not ask for is worth a warning once, at start.
  if (o.choice === 'auto' && qpdf === undefined)
    o.log.warn(line, { ...fields, missing: 'qpdf: merge and split run on pdf-lib, slower on large files' });
  else o.log.info(line, fields);
  return engine;
}
