// The content check's readers of text. Each reads the sampled pages of input and candidate alike, and each
// misreads some fonts: Ghostscript 10.00's new interpreter read pdf-lib's DejaVu Sans and PDF Tools'
// Helvetica as shifted glyph codes where poppler read them right, and the legacy one's text device never
// finished on an OCR text layer (OCRmyPDF's graph_ocred.pdf). So they are asked in order and the first that
// reads the input decides (content-check.ts). poppler's pdftotext, when installed, reads first: it was right
// on every file measured, 5-15x faster than Ghostscript's text device on embedded fonts, and it is what
// viewers and search indexes built on poppler see.
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InternalError } from '../../../errors.js';
import { runTool, ToolAbortedError } from '../../run-tool.js';
import type { ToolInfo } from '../../tools.js';
import type { WorkContext } from '../../types.js';
import { runGhostscript } from '../ghostscript.js';
import { type PdfInterpreter, pdfInterpreterInput } from '../presets.js';
import { type Result, type SnapshotTarget, sampledPagesArgs } from './render.js';
import { type TextSample, textSample } from './words.js';

/** Text beyond this is not read: five pages of even dense text are a fraction of it. */
const MAX_TEXT_BYTES = 4 * 1024 * 1024;

export interface WordReader {
  /** For file names and log lines: `pdftotext`, `default`, `legacy`. */
  name: string;
  read(target: SnapshotTarget, job: WorkContext): Promise<Result<TextSample>>;
}

async function readStart(path: string, limit: number): Promise<string> {
  const handle = await open(path);
  try {
    // Sized to the file: a buffer of the whole limit (4 MB), zeroed for each read, cost 0.6-0.8 ms of
    // CPU more per read than one the size of a 10-page text (34 KB).
    const length = Math.min(limit, (await handle.stat()).size);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Ghostscript's text device through one PDF interpreter. */
export function ghostscriptReader(gs: ToolInfo, interpreter: PdfInterpreter, timeoutMs: number): WordReader {
  return {
    name: interpreter,
    async read(target, job) {
      const output = `${target.name}-words-${interpreter}.txt`;
      const args = [
        ...sampledPagesArgs(target, interpreter),
        '-sDEVICE=txtwrite',
        // Images and vector art carry no words; skipping them made extraction 6x faster on photo pages.
        '-dFILTERIMAGE',
        '-dFILTERVECTOR',
        `-sOutputFile=${output}`,
        ...pdfInterpreterInput(resolve(target.path)),
      ];
      let failure: string | undefined;
      try {
        ({ failure } = await runGhostscript({ gs, args, timeoutMs }, job));
      } catch (error) {
        // A reader that cannot finish (a timeout) leaves the verdict to the others.
        if (!(error instanceof InternalError)) throw error;
        failure = error.message;
      }
      if (failure !== undefined) return { failure: `extracting text: ${failure}` };
      try {
        return { value: textSample(await readStart(resolve(job.workDir, output), MAX_TEXT_BYTES)) };
      } catch (error) {
        return { failure: `extracting text wrote nothing (${(error as Error).message})` };
      }
    },
  };
}

/** Up to this page, pdftotext reads from the first to the last sampled page in one run. */
const ONE_RUN_PAGES = 50;

/** The page ranges pdftotext reads: all the sample at once when it is short, else each sampled page. */
export function pdftotextRanges(pages: readonly number[]): [number, number][] {
  const [first, last] = [Math.min(...pages), Math.max(...pages)];
  if (last <= ONE_RUN_PAGES) return [[first, last]];
  return pages.map((page) => [page, page]);
}

/**
 * poppler's pdftotext. It takes a range, not a list, and a process costs more than reading a page, so
 * short documents are read whole from the first to the last sampled page (input and candidate alike),
 * long ones one sampled page per run.
 */
export function pdftotextReader(pdftotext: ToolInfo, timeoutMs: number): WordReader {
  return {
    name: 'pdftotext',
    async read(target, job) {
      let text = '';
      const ranges = pdftotextRanges(target.pages);
      for (const [from, to] of ranges) {
        const output = resolve(job.workDir, `${target.name}-words-pdftotext-${from}-${to}.txt`);
        const range = ['-f', String(from), '-l', String(to)];
        const args = ['-q', ...range, '-enc', 'UTF-8', resolve(target.path), output];
        let exitCode: number;
        try {
          ({ exitCode } = await runTool(pdftotext.path, args, {
            cwd: job.workDir,
            timeoutMs,
            signal: job.signal,
          }));
        } catch (error) {
          if (error instanceof ToolAbortedError) throw error;
          return { failure: `pdftotext failed to run: ${(error as Error).message}` };
        }
        if (exitCode !== 0) return { failure: `pdftotext exited with ${exitCode} on pages ${from}-${to}` };
        try {
          text += `${await readStart(output, Math.ceil(MAX_TEXT_BYTES / ranges.length))}\n`;
        } catch (error) {
          return { failure: `pdftotext wrote nothing for pages ${from}-${to} (${(error as Error).message})` };
        }
      }
      return { value: textSample(text) };
    },
  };
}
