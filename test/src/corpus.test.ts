// Every PDF of the real-world corpus (packages/fixtures/corpus, written by LibreOffice, Word, LaTeX,
// scanners, browsers, ImageMagick...) goes through compress at both ends of its scale,
// merge and (when it has more than one page) split on the real server, and what comes back is judged
// by poppler (harness/pdf-content.ts), which the server does not use: no page, image or searchable
// text may be lost. A file the independent tools call damaged may instead get a clean `400` naming
// it; a sound file may not. Never a 500.
import type { CompressionLevel, CompressResponse, MergeResponse, SplitResponse } from '@pdn/api-types';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CorpusFile, corpusFiles, isSound } from './harness/corpus.js';
import { download } from './harness/download.js';
import { field, file, form } from './harness/form.js';
import {
  compareContent,
  poppler,
  type Rendition,
  readPdf,
  samplePages,
  Unreadable,
} from './harness/pdf-content.js';
import { missing } from './harness/tools.js';
import { useServer } from './harness/use-server.js';

/**
 * The ends of the scale: `low` keeps images whole, `high` downsamples and recompresses them hardest.
 * `medium` takes the same paths with milder settings, and the compress suites cover it on every kind
 * of generated file; here it cost a fifth of the suite's minutes on CI's two cores.
 */
const LEVELS: CompressionLevel[] = ['low', 'high'];
/** Requests in flight at once: the suite's own renders and the server's tools share two cores. */
const CONCURRENCY = 2;

const files = await corpusFiles();
const skip = !poppler || missing('qpdf', 'the real-world corpus tests (qpdf judges which files are sound)');
if (!poppler) console.warn('[e2e] skipping the real-world corpus tests: poppler-utils is not installed');

/** Runs at most CONCURRENCY tasks at once, in the order they ask. */
function limiter(slots: number): <T>(task: () => Promise<T>) => Promise<T> {
  const waiting: (() => void)[] = [];
  let free = slots;
  return async (task) => {
    if (free === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    else free--;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}
const slot = limiter(CONCURRENCY);

interface Known {
  sound: boolean;
  /** How poppler reads the input (sampled pages), or why it cannot. */
  content: Rendition | Unreadable;
}
const known = new Map<string, Known>();

async function know(corpusFile: CorpusFile): Promise<Known> {
  const content = await readPdf(corpusFile.bytes, (count) => samplePages(count)).catch((error: unknown) => {
    if (error instanceof Unreadable) return error;
    throw error;
  });
  return { sound: await isSound(corpusFile), content };
}

function knownOf(name: string): Known {
  const found = known.get(name);
  if (!found) throw new Error(`${name} was not examined`);
  return found;
}

/** The next sound file after `index`, so every file is merged with one the server must accept. */
function partnerOf(index: number): CorpusFile {
  for (let step = 1; step < files.length; step++) {
    const candidate = files[(index + step) % files.length] as CorpusFile;
    if (knownOf(candidate.name).sound) return candidate;
  }
  throw new Error('the corpus has no sound file to merge with');
}

interface Refusal {
  status: number;
  message: string;
}

function refusalOf(res: { status: number; json: unknown }): Refusal {
  const body = res.json as { error?: { message?: string } } | undefined;
  return { status: res.status, message: body?.error?.message ?? '(no error envelope)' };
}

/**
 * A 400 is acceptable only for a file the independent tools call unsound, and only with a message
 * that names it; any other status than 200 or 400 fails.
 */
function expectCleanRefusal(answer: Refusal, names: readonly string[], sound: boolean): void {
  expect([200, 400], `status ${answer.status}: ${answer.message}`).toContain(answer.status);
  expect(sound, `a sound file was refused: ${answer.message}`).toBe(false);
  expect(
    names.some((name) => answer.message.includes(name)),
    `the message names the file: ${answer.message}`,
  ).toBe(true);
}

/** An input, and for each of its sampled pages the output page that must show it. */
interface Source {
  content: Rendition | Unreadable;
  pairs: (input: Rendition) => [number, number][];
}

/**
 * What a 200 must hold: for each source poppler reads, the output pages that should show its sampled
 * pages keep their look, marks, images and words; when it cannot, the output must at least be readable.
 * The output is read once for all the sources.
 */
async function expectContentKept(sources: Source[], output: Uint8Array, what: string): Promise<Rendition> {
  const wanted = (count: number) => [
    ...new Set(
      sources.flatMap(({ content, pairs }) =>
        content instanceof Unreadable ? samplePages(count) : pairs(content).map(([, to]) => to),
      ),
    ),
  ];
  const read = await readPdf(output, wanted).catch((error: unknown) => error);
  expect(read instanceof Unreadable ? read.message : '', `${what}: poppler reads the output`).toBe('');
  const rendition = read as Rendition;
  for (const { content, pairs } of sources) {
    if (content instanceof Unreadable) continue;
    const verdict = compareContent(content, rendition, pairs(content));
    const losses = verdict.losses.join('; ');
    expect(verdict.losses, `${what} lost content: ${losses} ${JSON.stringify(verdict.pages)}`).toEqual([]);
  }
  return rendition;
}

/** Each sampled input page against the same page of the output. */
function samePages(input: Rendition): [number, number][] {
  return [...input.pages.keys()].map((page) => [page, page]);
}

describe.skipIf(skip)(`real-world corpus: ${files.length} PDFs written by other software`, () => {
  const ctx = useServer();
  let key: string;

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'corpus', plan: 'enterprise' });
    for (const corpusFile of files) known.set(corpusFile.name, await slot(() => know(corpusFile)));
  }, 600_000);

  async function compressKeepsContent(corpusFile: CorpusFile, level: CompressionLevel): Promise<void> {
    const { name, bytes } = corpusFile;
    const { sound, content } = knownOf(name);
    const res = await slot(() =>
      ctx.call<CompressResponse>('/api/v1/compress', {
        key,
        body: form(file('file', bytes, name), field('level', level)),
      }),
    );
    if (res.status !== 200) {
      expectCleanRefusal(refusalOf(res), [name], sound);
      return;
    }
    const data = res.json.data;
    const output = await slot(() => download(ctx, data.download.url));
    const what = `${name} compressed at ${level} (${data.method})`;
    // A damaged file handed back untouched (`original`) has lost nothing.
    if (content instanceof Unreadable && output.bytes.equals(bytes)) return;
    const rendition = await slot(() =>
      expectContentKept([{ content, pairs: samePages }], output.bytes, what),
    );
    expect(rendition.pageCount, `${what}: page count`).toBe(data.page_count);
    if (!(content instanceof Unreadable))
      expect(rendition.pageCount, `${what}: pages`).toBe(content.pageCount);
  }

  describe.each(files.map((corpusFile, index) => ({ ...corpusFile, index })))('$name', (corpusFile) => {
    const { name, bytes } = corpusFile;

    for (const level of LEVELS) {
      it.concurrent(`compress at ${level} keeps every page, image and word`, () =>
        compressKeepsContent(corpusFile, level));
    }

    it.concurrent('split into single pages keeps each page whole', async ({ skip }) => {
      const { sound, content } = knownOf(name);
      const pages = content instanceof Unreadable ? [1] : [...content.pages.keys()];
      // Splitting out a one-page file's page is the page copy its merge below makes and judges.
      skip(!(content instanceof Unreadable) && content.pageCount === 1, 'one page: judged by its merge');
      const res = await slot(() =>
        ctx.call<SplitResponse>('/api/v1/split', {
          key,
          body: form(file('file', bytes, name), field('ranges', pages.join(','))),
        }),
      );
      if (res.status !== 200) {
        expectCleanRefusal(refusalOf(res), [name], sound);
        return;
      }
      const parts = res.json.data.parts;
      expect(parts.map((part) => part.pages)).toEqual(pages.map(String));
      for (const [index, part] of parts.entries()) {
        const page = pages[index] as number;
        const output = await slot(() => download(ctx, part.download.url));
        const rendition = await slot(() =>
          expectContentKept(
            [{ content, pairs: () => [[page, 1]] }],
            output.bytes,
            `${name} page ${page} split out`,
          ),
        );
        expect(rendition.pageCount).toBe(1);
      }
    });

    it.concurrent('merge with another file keeps both in order', async () => {
      const { sound, content } = knownOf(name);
      const partner = partnerOf(corpusFile.index);
      const other = knownOf(partner.name).content as Rendition;
      const res = await slot(() =>
        ctx.call<MergeResponse>('/api/v1/merge', {
          key,
          body: form(file('files[]', bytes, name), file('files[]', partner.bytes, partner.name)),
        }),
      );
      if (res.status !== 200) {
        expectCleanRefusal(refusalOf(res), ['file 1', name], sound);
        return;
      }
      const data = res.json.data;
      const output = await slot(() => download(ctx, data.download.url));
      const what = `${name} merged before ${partner.name}`;
      const first = content instanceof Unreadable ? data.page_count - other.pageCount : content.pageCount;
      expect(data.page_count, `${what}: pages`).toBe(first + other.pageCount);
      const shifted = (input: Rendition): [number, number][] =>
        [...input.pages.keys()].map((page) => [page, first + page]);
      const merged = await slot(() =>
        expectContentKept(
          [
            { content, pairs: samePages },
            { content: other, pairs: shifted },
          ],
          output.bytes,
          what,
        ),
      );
      expect(merged.pageCount).toBe(data.page_count);
    });
  });
});
