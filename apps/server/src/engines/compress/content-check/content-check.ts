// Proof of content before an answer (issue #9): a compression output is only returned when its sampled
// pages look like the input's and it kept the input's words, both above CONTENT_FLOORS.
//
// Pages: the input is rendered once per request, with the first PDF interpreter that reads it without
// complaint, and every candidate by that same interpreter, so the two pictures differ only by what the
// rewrite changed. Words: every reader (word-readers.ts) can misread some font, so the words pass when
// one reader, reading input and candidate alike, finds them kept, or reads no words in the input.
// The input's snapshot starts while Ghostscript rewrites the file (`start`), so the check adds to the
// answer's latency mostly the candidate's own snapshot.
import type { ToolInfo } from '../../tools.js';
import type { JobContext } from '../../types.js';
import type { PdfInterpreter } from '../presets.js';
import { type PageScore, pagesBelowFloor, type WordScore, wordsBelowFloor } from './floors.js';
import { samplePages } from './page-sample.js';
import { comparePgmFiles } from './pgm.js';
import { chooseRenderDpi, type Result, renderPages, type SnapshotRun } from './render.js';
import { ghostscriptReader, pdftotextReader, type WordReader } from './word-readers.js';
import { wordScore } from './words.js';

export interface ContentCheckOptions {
  gs: ToolInfo;
  /** In order of preference (../presets.ts interpreterOrder). */
  interpreters: readonly PdfInterpreter[];
  /** The first reader of words when installed. */
  pdftotext: ToolInfo | undefined;
  timeoutMs: number;
}

export interface ContentVerdict {
  /** Why the candidate must not be returned; undefined when it is proven. */
  rejected: string | undefined;
  /** Lowest PSNR over the sampled pages (dB), when they could be compared. */
  worstPsnrDb?: number;
  words?: WordScore;
}

export interface ContentCheck {
  /** Starts the input's snapshot in the background (prove() starts it too, if not yet started). */
  start(): void;
  /** Compares the PDF at `path` with the input; `name` names its render files in the job's folder. */
  prove(path: string, name: string): Promise<ContentVerdict>;
  /** Waits for a snapshot still running, so no Ghostscript outlives the request's folder. */
  settle(): Promise<void>;
  /** As log fields: how long the input's snapshot took (`reference_ms`), overlapping Ghostscript's rewrite. */
  fields(): { reference_ms: number | undefined };
}

interface Reference {
  /** The interpreter that rendered the input cleanly; candidates are rendered by it too. */
  run: SnapshotRun;
  /** Every render of this request, input and candidates, is at this resolution. */
  dpi: number;
  /** The input's page renders. */
  pages: string[];
}

export function createContentCheck(
  inputPath: string,
  pageCount: number,
  o: ContentCheckOptions,
  job: JobContext,
): ContentCheck {
  const pages = samplePages(pageCount);
  const runs = o.interpreters.map((interpreter) => ({ gs: o.gs, interpreter, timeoutMs: o.timeoutMs }));
  const readers: WordReader[] = [
    ...(o.pdftotext === undefined ? [] : [pdftotextReader(o.pdftotext, o.timeoutMs)]),
    ...o.interpreters.map((interpreter) => ghostscriptReader(o.gs, interpreter, o.timeoutMs)),
  ];
  const input = { path: inputPath, pages, name: 'input' };
  const inputWords = new Map<WordReader, Promise<Result<Set<string>>>>();
  let reference: Promise<Reference | { failure: string }> | undefined;
  let referenceMs: number | undefined;

  function wordsOfInput(reader: WordReader): Promise<Result<Set<string>>> {
    let words = inputWords.get(reader);
    if (words === undefined) {
      words = reader.read(input, job);
      inputWords.set(reader, words);
    }
    return words;
  }

  async function renderInput(): Promise<Reference | { failure: string }> {
    const dpi = await chooseRenderDpi(input, o, job);
    const failures: string[] = [];
    for (const run of runs) {
      const rendered = await renderPages({ ...input, name: `input-${run.interpreter}` }, dpi, run, job);
      if ('value' in rendered) return { run, dpi, pages: rendered.value };
      failures.push(`${run.interpreter} interpreter, ${rendered.failure}`);
    }
    return { failure: `the input could not be rendered for comparison (${failures.join('; ')})` };
  }

  function start(): Promise<Reference | { failure: string }> {
    if (reference === undefined) {
      const started = performance.now();
      reference = renderInput().then(async (rendered) => {
        // The first reader's reading of the input, while Ghostscript is still busy with the rewrite.
        if (readers[0] !== undefined) await wordsOfInput(readers[0]);
        referenceMs = Math.round(performance.now() - started);
        return rendered;
      });
      // Awaited by prove() or settle(); until then a failure (an abort) must not count as unhandled.
      reference.catch(() => {});
    }
    return reference;
  }

  async function comparePages(ref: Reference, path: string, name: string): Promise<Result<PageScore[]>> {
    const rendered = await renderPages({ path, pages, name }, ref.dpi, ref.run, job);
    if ('failure' in rendered) return rendered;
    const scores: PageScore[] = [];
    for (const [index, page] of pages.entries()) {
      try {
        const psnrDb = await comparePgmFiles(ref.pages[index] as string, rendered.value[index] as string);
        scores.push({ page, psnrDb });
      } catch (error) {
        return { failure: `page ${page} could not be compared (${(error as Error).message})` };
      }
    }
    return { value: scores };
  }

  /**
   * The first reader's score that clears the floor. A reader that cannot read the input abstains; one
   * that reads it and finds no words says there is nothing to lose; one that found words and does not
   * find them kept in the candidate refuses, and the next reader is asked.
   */
  async function compareWords(path: string, name: string): Promise<{ score?: WordScore; rejected?: string }> {
    const refusals: string[] = [];
    for (const reader of readers) {
      const before = await wordsOfInput(reader);
      if ('failure' in before) {
        refusals.push(`${reader.name} could not read the input (${before.failure})`);
        continue;
      }
      if (before.value.size === 0) return { score: { kept: 0, reference: 0 } };
      const after = await reader.read({ path, pages, name }, job);
      if ('failure' in after) {
        refusals.push(`${reader.name}: ${after.failure}`);
        continue;
      }
      const score = wordScore(before.value, after.value);
      const below = wordsBelowFloor(score);
      if (below === undefined) return { score };
      refusals.push(`${reader.name}: ${below}`);
    }
    return { rejected: refusals.join('; ') };
  }

  async function prove(path: string, name: string): Promise<ContentVerdict> {
    const ref = await start();
    if ('failure' in ref) return { rejected: ref.failure };
    const scores = await comparePages(ref, path, name);
    if ('failure' in scores) return { rejected: scores.failure };
    const worstPsnrDb = Math.min(...scores.value.map((score) => score.psnrDb));
    const pagesRefused = pagesBelowFloor(scores.value);
    if (pagesRefused !== undefined) return { rejected: pagesRefused, worstPsnrDb };
    const words = await compareWords(path, name);
    return { rejected: words.rejected, worstPsnrDb, ...(words.score && { words: words.score }) };
  }

  return {
    start,
    prove,
    settle: async () => {
      await reference?.catch(() => {});
      await Promise.allSettled(inputWords.values());
    },
    fields: () => ({ reference_ms: referenceMs }),
  };
}
