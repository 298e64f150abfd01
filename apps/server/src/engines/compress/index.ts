// Picks the compress engine at start-up (Ghostscript + qpdf when installed, pdf-lib otherwise;
// PDN_COMPRESS_ENGINE=auto|ghostscript|pdf-lib to force), and says which in the log.
import type { CpuSlots } from '../cpu-slots.js';
import type { DetectedTools } from '../tools.js';
import type { CompressEngine, EngineLog, WorkFolders } from '../types.js';
import { createGhostscriptEngine } from './ghostscript-engine.js';
import { createPdfLibCompressEngine } from './pdf-lib-engine.js';

export interface CompressEngineOptions {
  choice: 'auto' | 'ghostscript' | 'pdf-lib';
  tools: DetectedTools;
  cpuSlots: CpuSlots;
  maxPages: number;
  timeoutMs: number;
  /** Where Ghostscripts started ahead of a call wait (ghostscript-spares.ts). */
  folders: WorkFolders;
  log: EngineLog;
}

/** Throws at start-up when Ghostscript is forced but not installed: better than failing every request. */
export function createCompressEngine(o: CompressEngineOptions): CompressEngine {
  const { ghostscript: gs, qpdf } = o.tools;
  if (o.choice === 'ghostscript' && gs === undefined) {
    throw new Error(
      'The compress engine is set to Ghostscript (PDN_COMPRESS_ENGINE=ghostscript), but gs was not found ' +
        'on PATH. Install Ghostscript, or set PDN_COMPRESS_ENGINE to auto or pdf-lib.',
    );
  }
  const { cpuSlots, maxPages, timeoutMs } = o;
  const engine =
    o.choice !== 'pdf-lib' && gs !== undefined
      ? createGhostscriptEngine({
          gs,
          tools: o.tools,
          cpuSlots,
          maxPages,
          timeoutMs,
          folders: o.folders,
          log: o.log,
        })
      : createPdfLibCompressEngine({ cpuSlots, maxPages, timeoutMs });
  const line = `Compress engine: ${engine.info.name} ${engine.info.version}`;
  const fields = {
    choice: o.choice,
    engine: engine.info.name,
    version: engine.info.version,
    // Without qpdf, Ghostscript's output goes out without the lossless pass.
    qpdfPass: engine.info.name === 'ghostscript' && qpdf !== undefined,
  };
  // What is missing for the best compression the operator left to `auto`: a warning once.
  const missing =
    o.choice !== 'auto'
      ? undefined
      : gs === undefined
        ? 'Ghostscript (gs): compress runs on pdf-lib, which only repacks losslessly'
        : qpdf === undefined
          ? "qpdf: Ghostscript's output goes out without the lossless pass"
          : undefined;
  if (missing === undefined) o.log.info(line, fields);
  else o.log.warn(line, { ...fields, missing });
  return engine;
}
