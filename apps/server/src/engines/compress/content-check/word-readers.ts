// The content check's readers of words (issue #9). Each reads the sampled pages of input and candidate
// alike; none is trusted alone, because each misreads some fonts: Ghostscript 10.00's new interpreter
// read pdf-lib's DejaVu Sans as shifted glyph codes where its legacy one and poppler read it right, and
// the legacy one's text device never finished on an OCR text layer (OCRmyPDF's graph_ocred.pdf).
// poppler's pdftotext, when installed, reads first: it was right on every file measured and 5-15x
// faster than Ghostscript's text device on embedded fonts.
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InternalError } from '../../../errors.js';
import { runTool, ToolAbortedError } from '../../run-tool.js';
import type { ToolInfo } from '../../tools.js';
import type { JobContext } from '../../types.js';
import { runGhostscript } from '../ghostscript.js';
import { type PdfInterpreter, pdfInterpreterInput } from '../presets.js';
import { type Result, type SnapshotTarget, sampledPagesArgs } from './render.js';
import { distinctWords } from './words.js';

/** Text beyond this is not read: five pages of even dense text are a fraction of it. */
const MAX_TEXT_BYTES = 4 * 1024 * 1024;

export interface WordReader {
  /** For file names and log lines: `pdftotext`, `default`, `legacy`. */
  name: string;
  read(target: SnapshotTarget, job: JobContext): Promise<Result<Set<string>>>;
}

async function readStart(path: string, limit: number): Promise<string> {
  const handle = await open(path);
  try {
    const buffer = Buffer.alloc(limit);
    const { bytesRead } = await handle.read(buffer, 0, limit, 0);
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
        return { value: distinctWords(await readStart(resolve(job.workDir, output), MAX_TEXT_BYTES)) };
      } catch (error) {
        return { failure: `extracting text wrote nothing (${(error as Error).message})` };
      }
    },
  };
}

/** poppler's pdftotext, one run per sampled page (it takes a range, and the sample is spread out). */
export function pdftotextReader(pdftotext: ToolInfo, timeoutMs: number): WordReader {
  return {
    name: 'pdftotext',
    async read(target, job) {
      let text = '';
      for (const page of target.pages) {
        const output = resolve(job.workDir, `${target.name}-words-pdftotext-${page}.txt`);
        const args = [
          '-q',
          '-f',
          String(page),
          '-l',
          String(page),
          '-enc',
          'UTF-8',
          resolve(target.path),
          output,
        ];
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
        if (exitCode !== 0) return { failure: `pdftotext exited with ${exitCode} on page ${page}` };
        try {
          text += `${await readStart(output, Math.ceil(MAX_TEXT_BYTES / target.pages.length))}\n`;
        } catch (error) {
          return { failure: `pdftotext wrote nothing for page ${page} (${(error as Error).message})` };
        }
      }
      return { value: distinctWords(text) };
    },
  };
}
