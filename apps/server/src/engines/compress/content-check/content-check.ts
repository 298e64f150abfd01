// Proof of content before an answer: a compression output is only returned when its sampled pages look like
// the input's, its text kept the input's words and characters, and it kept the input's form fields,
// annotations, attachments and outline, all against CONTENT_FLOORS.
//
// Pages: the input is rendered once per request, by the first renderer that draws it without complaint
// (poppler's pdftoppm when installed, independent of the Ghostscript that rewrote it; then Ghostscript's
// interpreters), and every candidate by that same renderer, so the two pictures differ only by what the
// rewrite changed. Text: the first reader that reads the input decides (word-readers.ts); a reader that
// cannot read it leaves the verdict to the next. Structure: qpdf's reading of input and candidate
// (pdf-structure.ts), where qpdf is installed. The input's render and text are taken while Ghostscript
// rewrites the file (`start`) and reused for every candidate, and stopped where no candidate needed them; a
// candidate's render, text and structure are read side by side. Every tool it runs is the job's side work
// (../../job-lanes.ts): beside the rewrite and beside one another only in slots no other job is waiting for.

import type { JobLanes } from '../../job-lanes.js';
import type { QpdfRun } from '../../pdf/run-qpdf.js';
import type { ToolInfo } from '../../tools.js';
import type { WorkContext } from '../../types.js';
import type { PdfInterpreter } from '../presets.js';
import { drawnImages } from './drawn-images.js';
import {
  CONTENT_FLOORS,
  charactersBelowFloor,
  imagesBelowFloor,
  occurrencesBelowFloor,
  type PageScore,
  pagesBelowFloor,
  storedStreamsChanged,
  structureBelowFloor,
  type TileScore,
  tilesBelowFloor,
  type WordScore,
  wordsBelowFloor,
  worstTiles,
} from './floors.js';
import { samplePages } from './page-sample.js';
import { renderDpi } from './page-sizes.js';
import { holdsNoStructure, type PdfStructure, readStructure } from './pdf-structure.js';
import { comparePgmFiles } from './pgm.js';
import { drawInColour, renderGroups } from './photo-renders.js';
import { popplerRenderer } from './poppler-renderer.js';
import {
  ghostscriptPageSides,
  ghostscriptRenderer,
  type PageRenderer,
  RENDER_BOUNDS,
  type Result,
  type SnapshotTarget,
} from './render.js';
import { ghostscriptReader, pdftotextReader, type WordReader } from './word-readers.js';
import { fewerOccurrences, lostCharacters, type TextSample, wordScore } from './words.js';

export interface ContentCheckOptions {
  gs: ToolInfo;
  /** In order of preference (../presets.ts interpreterOrder). */
  interpreters: readonly PdfInterpreter[];
  /** The first reader of words when installed. */
  pdftotext: ToolInfo | undefined;
  /** The first renderer when installed. */
  pdftoppm: ToolInfo | undefined;
  /** Counts the images each sampled page draws, when installed. */
  pdfimages: ToolInfo | undefined;
  /**
   * The input's structure, read once per file (the engine reads it before Ghostscript runs, for its
   * fonts), and how to read the candidates'; undefined where qpdf is not installed.
   */
  structure: { input: Result<PdfStructure>; run: QpdfRun } | undefined;
  timeoutMs: number;
  /** The job's lanes, which run every tool of the check as side work. */
  lanes: JobLanes;
}

export interface ContentVerdict {
  /** Why the candidate must not be returned; undefined when it is proven. */
  rejected: string | undefined;
  /** Lowest PSNR over the sampled pages (dB), when they could be compared. */
  worstPsnrDb?: number;
  /** Lowest tile scores over the sampled pages, when they could be compared. */
  worstTile?: TileScore;
  words?: WordScore;
  /**
   * Set where it was refused: whether for lost text or structure (form fields, annotations,
   * attachments, outline) rather than for how its pages look or a count of images alone:
   * what a Ghostscript rewrite does to fonts and objects, which its image settings, the only thing
   * `high` and `medium` differ in (../presets.ts), do not touch.
   */
  lostTextOrStructure?: boolean;
}

export interface ContentCheck {
  /** Starts the input's snapshot in the background (prove() starts it too, if not yet started). */
  start(): void;
  /** Compares the PDF at `path` with the input; `name` names its render files in the job's folder. */
  prove(path: string, name: string): Promise<ContentVerdict>;
  /**
   * Compares only the structure: for a rewrite that leaves every page's content as it was (qpdf's
   * lossless rewrite of an input it read without repairs), whose pages and text are the input's by
   * construction. Neither the input nor the output is rendered or read.
   */
  proveStructure(path: string, name: string): Promise<ContentVerdict>;
  /**
   * Stops the input's snapshot where it still runs (called once the answer is chosen: nothing needs it
   * any more) and waits for its tools to end, so none outlives the request's folder.
   */
  settle(): Promise<void>;
  /** As log fields: how long the input's snapshot took (`reference_ms`), overlapping Ghostscript's rewrite. */
  fields(): { reference_ms: number | undefined };
}

/** How every render of this request, input and candidates, is made. */
interface RenderPlan {
  dpi: number;
  /** Which of the input's pages draw images, so candidates are drawn in the input's runs (render.ts). */
  drawsImages: SnapshotTarget['drawsImages'];
  /** The sampled pages a candidate's render draws in one process, side by side (photo-renders.ts). */
  groups: number[][];
  /** Whether pages are drawn in colour (photo-renders.ts). */
  colour: boolean;
}

/** The pixels of the images a page draws from, as the structure lists them; 0 where it is unknown. */
function imagePixelsOf(structure: PdfStructure | undefined, page: number): number {
  let pixels = 0;
  for (const stream of structure?.streams[page - 1] ?? []) {
    const [width, height] = (stream.pixels ?? '').split('x').map(Number);
    if (width !== undefined && height !== undefined && width > 0 && height > 0) pixels += width * height;
  }
  return pixels;
}

interface Reference {
  /** The renderer that drew the input cleanly; candidates are drawn by it too. */
  renderer: PageRenderer;
  /** The input's page renders. */
  pages: string[];
}

/** Whether the sample leaves pages out between two sampled ones (a renderer might draw them, render.ts). */
function leavesPagesOut(pages: readonly number[]): boolean {
  return pages.some((page, index) => index > 0 && page !== (pages[index - 1] as number) + 1);
}

/** Whether `page` draws an image by the input's count (drawn-images.ts); unknown where it was not read. */
function drawsImagesBy(perPage: ReadonlyMap<number, number>, page: number): boolean | undefined {
  const count = perPage.get(page);
  return count === undefined ? undefined : count > 0;
}

export function createContentCheck(
  inputPath: string,
  pageCount: number,
  o: ContentCheckOptions,
  job: WorkContext,
): ContentCheck {
  const pages = samplePages(pageCount);
  const renderers: PageRenderer[] = [
    ...(o.pdftoppm === undefined ? [] : [popplerRenderer(o.pdftoppm, o.timeoutMs)]),
    ...o.interpreters.map((interpreter) => ghostscriptRenderer(o.gs, interpreter, o.timeoutMs)),
  ];
  const readers: WordReader[] = [
    ...(o.pdftotext === undefined ? [] : [pdftotextReader(o.pdftotext, o.timeoutMs)]),
    ...o.interpreters.map((interpreter) => ghostscriptReader(o.gs, interpreter, o.timeoutMs)),
  ];
  const input = { path: inputPath, pages, name: 'input' };
  // The input's reads run beside Ghostscript's rewrite, before anyone knows whether its output will
  // need them: where it then loses to qpdf's lossless rewrite, settle() stops them rather than wait
  // (a real scan with large masks spent 0.5 s of CPU per answer with its reads, 0.25-0.3 s without).
  const snapshot = new AbortController();
  const inputJob: WorkContext = { ...job, signal: AbortSignal.any([job.signal, snapshot.signal]) };
  const inputText = new Map<WordReader, Promise<Result<TextSample>>>();
  let inputImages: Promise<Result<Map<number, number>>> | undefined;
  let plan: Promise<RenderPlan> | undefined;
  let reference: Promise<Reference | { failure: string }> | undefined;
  let referenceMs: number | undefined;

  function textOfInput(reader: WordReader): Promise<Result<TextSample>> {
    let text = inputText.get(reader);
    if (text === undefined) {
      text = o.lanes.beside(() => reader.read(input, inputJob));
      inputText.set(reader, text);
    }
    return text;
  }

  /** The plan of every render; `images`, the input's count, where it says which pages to draw at once. */
  async function planRenders(images: typeof inputImages): Promise<RenderPlan> {
    // Page sizes from the structure already read, else from Ghostscript (one process more).
    const known =
      o.structure !== undefined && 'value' in o.structure.input ? o.structure.input.value : undefined;
    const sides =
      known === undefined
        ? await o.lanes.beside(() => ghostscriptPageSides(input, o, inputJob))
        : new Map(
            known.pageSides.flatMap((side, index) =>
              side === undefined ? [] : [[index + 1, side] as const],
            ),
          );
    const dpi = renderDpi(sides, pages, RENDER_BOUNDS);
    const imagePixels = (page: number) => imagePixelsOf(known, page);
    const photos = { groups: renderGroups(pages, imagePixels), colour: drawInColour(pages, imagePixels) };
    if (images === undefined) return { dpi, drawsImages: undefined, ...photos };
    const counted = await images.catch(() => undefined);
    const perPage = counted !== undefined && 'value' in counted ? counted.value : undefined;
    return { dpi, drawsImages: perPage && ((page: number) => drawsImagesBy(perPage, page)), ...photos };
  }

  async function renderInput({
    dpi,
    drawsImages,
    colour,
  }: RenderPlan): Promise<Reference | { failure: string }> {
    const failures: string[] = [];
    for (const renderer of renderers) {
      const target = { ...input, name: `input-${renderer.name}`, drawsImages, colour };
      const rendered = await renderer.render(target, dpi, inputJob);
      if ('value' in rendered) return { renderer, pages: rendered.value };
      failures.push(`${renderer.name}, ${rendered.failure}`);
    }
    return { failure: `the input could not be rendered for comparison (${failures.join('; ')})` };
  }

  function start(): Promise<RenderPlan> {
    if (plan === undefined) {
      const started = performance.now();
      // The input's render, its images counted and the first reader's reading of its text: side work,
      // beside Ghostscript's rewrite where a slot is spare, else after it. Queued a moment later, once
      // the rewrite that started them has taken the job's own slot: the answer waits on the rewrite
      // first (queued first, two reads took both slots and held Ghostscript back 17 ms).
      const queued = Promise.resolve();
      const { pdfimages } = o;
      const countImages =
        pdfimages && (() => o.lanes.beside(() => drawnImages(pdfimages, input, o.timeoutMs, inputJob)));
      // The count says which pages between the sampled ones pdftoppm may draw in the same run: a sample
      // that leaves none out (every file of up to 5 pages) is drawn without waiting for it.
      const countFirst = countImages && leavesPagesOut(pages) ? queued.then(countImages) : undefined;
      const planned = queued.then(() => planRenders(countFirst));
      plan = planned;
      // Then queued in the order of their cost: the render, the count (where the render did not wait
      // for it), the text.
      reference = planned.then((p) => o.lanes.beside(() => renderInput(p)));
      const afterRender = <T>(read: () => Promise<T>) => planned.then(read, read);
      const images = countFirst ?? (countImages && afterRender(countImages));
      inputImages = images;
      const [first] = readers;
      const text = first && afterRender(() => o.lanes.beside(() => first.read(input, inputJob)));
      if (first !== undefined && text !== undefined) inputText.set(first, text);
      const snapshotRead = Promise.all([reference, text, images]).then(() => {
        referenceMs = Math.round(performance.now() - started);
      });
      // Awaited by prove() or settle(); until then a failure (an abort) must not count as unhandled.
      for (const read of [planned, reference, text, images, snapshotRead]) read?.catch(() => {});
    }
    return plan;
  }

  /**
   * The candidate's pages against the input's. The candidate is drawn at once by the first renderer,
   * the one that draws the input unless it complains there, so its render runs beside the input's
   * where that is still running (a camera photo file's four pages took 0.2-0.4 s a side) rather
   * than after it; drawn again by the input's renderer where that turns out to be another. Photo pages
   * are drawn in two groups side by side (photo-renders.ts), each compared as soon as it is drawn.
   */
  async function comparePages(
    { dpi, drawsImages, groups, colour }: RenderPlan,
    path: string,
    name: string,
  ): Promise<Result<PageScore[]>> {
    const render = (renderer: PageRenderer, group: number[], index: number) => {
      const target = {
        path,
        pages: group,
        name: groups.length > 1 ? `${name}-${index + 1}` : name,
        drawsImages,
        colour,
      };
      return o.lanes.beside(() => renderer.render(target, dpi, job));
    };
    const [first] = renderers;
    const early = first && groups.map((group, index) => render(first, group, index));
    // Settled below in every case; until then a failure (an abort) must not count as unhandled.
    for (const drawn of early ?? []) drawn.catch(() => {});
    let ref: Awaited<typeof reference>;
    try {
      ref = await (reference as NonNullable<typeof reference>);
    } catch (error) {
      await Promise.allSettled(early ?? []);
      throw error;
    }
    if ('failure' in ref) {
      await Promise.allSettled(early ?? []);
      return ref;
    }
    const { renderer, pages: referencePages } = ref;
    const compareGroup = async (group: number[], index: number): Promise<Result<PageScore[]>> => {
      const drawn = early?.[index];
      const rendered =
        renderer === first && drawn !== undefined ? await drawn : await render(renderer, group, index);
      if ('failure' in rendered) return rendered;
      const scores: PageScore[] = [];
      for (const [at, page] of group.entries()) {
        try {
          const compared = await comparePgmFiles(
            referencePages[pages.indexOf(page)] as string,
            rendered.value[at] as string,
            // At least 16 pixels a side: a poster drawn at a few dpi would otherwise be cut into specks.
            Math.max(16, Math.round(dpi * CONTENT_FLOORS.tileInches)),
          );
          scores.push({ page, ...compared });
        } catch (error) {
          return { failure: `page ${page} could not be compared (${(error as Error).message})` };
        }
      }
      return { value: scores };
    };
    const compared = groups.map(compareGroup);
    // All settled before anything is returned, so no render outlives the request's folder.
    await Promise.allSettled([...compared, ...(early ?? [])]);
    const scores: PageScore[] = [];
    for (const group of compared) {
      const result = await group;
      if ('failure' in result) return result;
      scores.push(...result.value);
    }
    return { value: scores };
  }

  interface TextVerdict {
    score?: WordScore;
    rejected?: string;
  }

  /**
   * The text, judged by the first reader that reads the input: it finds no text there (nothing to
   * lose), or the candidate must keep the input's words and every one of its characters, as often, as that reader
   * sees them. A reader that misreads a font misreads it in both files alike, so a second opinion could
   * only overrule the reader that read the input right: Ghostscript's text device read PDF Tools'
   * Helvetica as shifted codes in input and output alike and passed an output in which poppler found 1
   * of 57 words. A reader that cannot read the input abstains.
   */
  async function compareText(path: string, name: string): Promise<TextVerdict> {
    const abstentions: string[] = [];
    for (const reader of readers) {
      const before = await textOfInput(reader);
      if ('failure' in before) {
        abstentions.push(`${reader.name} could not read the input (${before.failure})`);
        continue;
      }
      if (before.value.characters.size === 0) return { score: { kept: 0, reference: 0 } };
      const after = await o.lanes.beside(() => reader.read({ path, pages, name }, job));
      if ('failure' in after) return { rejected: `${reader.name}: ${after.failure}` };
      const score = wordScore(before.value.words, after.value.words);
      const lost = lostCharacters(before.value.characters, after.value.characters);
      const below =
        wordsBelowFloor(score) ??
        charactersBelowFloor(lost, before.value.characters.size) ??
        occurrencesBelowFloor(fewerOccurrences(before.value.occurrences, after.value.occurrences));
      return below === undefined ? { score } : { score, rejected: `${reader.name}: ${below}` };
    }
    return { rejected: `no reader could read the input's text: ${abstentions.join('; ')}` };
  }

  /**
   * Undefined when the candidate kept the input's structure, or where qpdf is not installed. A lossless
   * rewrite must also store every stream its pages draw from as qpdf keeps them (storedStreamsChanged):
   * no render looks at it.
   */
  async function compareStructure(
    path: string,
    name: string,
    lossless: boolean,
  ): Promise<string | undefined> {
    if (o.structure === undefined) return undefined;
    const { input: before, run } = o.structure;
    if ('failure' in before) return `the input's structure could not be read: ${before.failure}`;
    // Nothing to lose: a rewrite may add structure, never take it, so a file without fields,
    // annotations, attachments or outline needs no look at the candidate's (one qpdf run fewer).
    if (!lossless && holdsNoStructure(before.value)) return undefined;
    const after = await o.lanes.beside(() => readStructure(path, name, run));
    if ('failure' in after) return `the output's structure could not be read: ${after.failure}`;
    const lost = structureBelowFloor(before.value, after.value);
    return lost ?? (lossless ? storedStreamsChanged(before.value, after.value) : undefined);
  }

  /**
   * Undefined when each sampled page draws at least the input's images, or where pdfimages is not
   * installed or could not count the input's (it abstains, as a reader of text does).
   */
  async function compareImages(path: string, name: string): Promise<string | undefined> {
    if (o.pdfimages === undefined || inputImages === undefined) return undefined;
    const before = await inputImages;
    if ('failure' in before) return undefined;
    // The sampled pages only: the count also covers the pages between them (drawn-images.ts).
    const sampled = new Map(pages.map((page) => [page, before.value.get(page) ?? 0]));
    // Where the input draws no image on the sampled pages, no count of the candidate's can fall below
    // its: one pdfimages run fewer per candidate of a text file.
    if ([...sampled.values()].every((count) => count === 0)) return undefined;
    const { pdfimages } = o;
    const after = await o.lanes.beside(() => drawnImages(pdfimages, { path, pages, name }, o.timeoutMs, job));
    if ('failure' in after) return `the output's images could not be counted: ${after.failure}`;
    return imagesBelowFloor(sampled, after.value);
  }

  async function prove(path: string, name: string): Promise<ContentVerdict> {
    const renderPlan = await start();
    const runs = [
      comparePages(renderPlan, path, name),
      compareText(path, name),
      compareStructure(path, name, false),
      compareImages(path, name),
    ] as const;
    // Side by side, and all settled before anything is thrown, so no tool outlives the request's folder.
    await Promise.allSettled(runs);
    const [scores, text, structure, images] = [await runs[0], await runs[1], await runs[2], await runs[3]];
    if ('failure' in scores) return { rejected: scores.failure };
    const worstPsnrDb = Math.min(...scores.value.map((score) => score.psnrDb));
    const rejected =
      pagesBelowFloor(scores.value) ?? images ?? text.rejected ?? structure ?? tilesBelowFloor(scores.value);
    const worstTile = worstTiles(scores.value);
    return {
      rejected,
      ...(rejected !== undefined && {
        lostTextOrStructure: text.rejected !== undefined || structure !== undefined,
      }),
      worstPsnrDb,
      ...(worstTile && { worstTile }),
      ...(text.score && { words: text.score }),
    };
  }

  return {
    start: () => {
      start();
    },
    prove,
    proveStructure: async (path, name) => {
      const rejected = await compareStructure(path, name, true);
      return { rejected, ...(rejected !== undefined && { lostTextOrStructure: true }) };
    },
    settle: async () => {
      snapshot.abort();
      await Promise.allSettled([plan, reference, inputImages, ...inputText.values()]);
    },
    fields: () => ({ reference_ms: referenceMs }),
  };
}
