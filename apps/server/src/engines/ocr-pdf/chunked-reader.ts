// A long document read in chunks, so that its job can hand its slot on between them (openapi.yaml,
// "Jobs", Fairness; WorkContext.turns). Each chunk's pages are taken out of the document with qpdf,
// which reads only the objects of those pages, never the whole file again; the engine reads them as a
// document of its own; the chunk's searchable PDF, page outcomes and texts are kept as soon as it is
// finished, so a job that handed its slot on starts its next turn, here or on another worker, after
// its last kept chunk. The chunks are joined at the end, the first one's document as the base.
//
// Chunks are sized by time, not pages (chunk-sizes.ts): a document whose pages are estimated to take
// no more than one chunk is read whole, in one engine run. Only a plain document is cut
// (document-listing.ts); anything else, an image, or a request for some pages only, is read whole.
import { mkdtemp, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InternalError } from '../../errors.js';
import { type QpdfRun, qpdfSucceeded, runQpdf } from '../pdf/run-qpdf.js';
import type { ToolInfo } from '../tools.js';
import type { Turns, WorkContext } from '../types.js';
import { CHUNK_TARGET_MS, DEFAULT_PACE, measuredPace, nextChunkPages } from './chunk-sizes.js';
import { listDocument } from './document-listing.js';
import type { DocumentReader, ReadDocument, ReadPlan } from './document-reader.js';
import type { OcrPdfPageOutcome, OcrPdfProgress } from './types.js';

export interface ChunkOptions {
  qpdf: ToolInfo;
  timeoutMs: number;
  /** The engine's parallel page readers: chunks are whole rounds of them. */
  concurrency: number;
}

/** A finished chunk as kept: its pages' outcomes and texts beside its searchable PDF. */
interface KeptChunk {
  first: number;
  last: number;
  pages: OcrPdfPageOutcome[];
  texts: (string | undefined)[];
  /**
   * The pace it was read at (chunk-sizes.ts), which sizes the next chunk, in this turn or the next;
   * absent from a chunk an earlier version of the server kept.
   */
  pace?: number;
}

const chunkName = (first: number) => `chunk-${String(first).padStart(6, '0')}`;

/** The chunks kept in earlier turns, in page order. */
async function keptChunks(dir: string): Promise<KeptChunk[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  return Promise.all(
    names.map(async (name) => JSON.parse(await readFile(join(dir, name), 'utf8')) as KeptChunk),
  );
}

export function chunkedReader(inner: DocumentReader, o: ChunkOptions): DocumentReader {
  return {
    info: inner.info,
    method: inner.method,
    async read(plan, job, onProgress) {
      const { turns } = job;
      if (turns === undefined || plan.doc.kind !== 'pdf' || plan.pages.length !== plan.doc.pageCount)
        return inner.read(plan, job, onProgress);
      const run = { qpdf: o.qpdf, cwd: job.workDir, timeoutMs: o.timeoutMs, signal: job.signal };
      const listing = await listDocument(plan.doc.path, run);
      if (listing === undefined || !listing.plain || listing.pagePixels.length !== plan.doc.pageCount)
        return inner.read(plan, job, onProgress);
      const chunks = { run, readers: o.concurrency, pagePixels: listing.pagePixels };
      return readInChunks(inner, plan, { ...job, turns }, onProgress, chunks);
    },
  };
}

interface Chunking {
  run: QpdfRun;
  /** The engine's parallel page readers. */
  readers: number;
  /** The document's pages' pixels (document-listing.ts). */
  pagePixels: readonly number[];
}

async function readInChunks(
  inner: DocumentReader,
  plan: ReadPlan,
  job: WorkContext & { turns: Turns },
  onProgress: OcrPdfProgress,
  { run, readers, pagePixels }: Chunking,
): Promise<ReadDocument> {
  const keptDir = await job.turns.keptDir();
  const total = plan.doc.pageCount;
  const chunks = await keptChunks(keptDir);
  let next = (chunks.at(-1)?.last ?? 0) + 1;
  let pace = chunks.at(-1)?.pace ?? DEFAULT_PACE;
  const sizing = () => ({ pace, readers, targetMs: CHUNK_TARGET_MS });
  if (chunks.length === 0 && nextChunkPages(pagePixels, sizing()) === total)
    return inner.read(plan, job, onProgress);
  onProgress(next - 1, total);
  while (next <= total) {
    const first = next;
    const left = pagePixels.slice(first - 1);
    const last = first - 1 + nextChunkPages(left, sizing());
    const started = performance.now();
    const pixels = left.slice(0, last - first + 1).reduce((sum, n) => sum + n, 0);
    const read = await readChunk(inner, plan, job, { first, last }, run, (done) =>
      onProgress(first - 1 + done, total),
    );
    pace = measuredPace(performance.now() - started, pixels, Math.min(readers, last - first + 1));
    chunks.push(await keepChunk(read, { first, last, pace }, keptDir));
    next = last + 1;
    if (next <= total) await job.turns.between();
  }
  const path = await joinChunks(
    chunks.map((chunk) => join(keptDir, `${chunkName(chunk.first)}.pdf`)),
    job.workDir,
    run,
  );
  const pages = chunks.flatMap((chunk) => chunk.pages);
  const texts = chunks.flatMap((chunk) => chunk.texts);
  // A skipped page's text was kept as null (JSON has no undefined).
  return { path, pages, textOf: async (page) => texts[page - 1] ?? undefined };
}

/** A chunk read: its searchable PDF in its own work folder, its pages' outcomes and texts. */
type ReadChunk = Pick<KeptChunk, 'pages' | 'texts'> & { path: string };

/** Reads pages `first`-`last` as a document of their own. */
async function readChunk(
  inner: DocumentReader,
  plan: ReadPlan,
  job: WorkContext & { turns: Turns },
  { first, last }: { first: number; last: number },
  run: QpdfRun,
  onProgress: (done: number) => void,
): Promise<ReadChunk> {
  const workDir = await mkdtemp(join(job.workDir, 'chunk-'));
  const path = join(workDir, 'pages.pdf');
  // The document itself the base: its information, metadata and page labels go with every chunk.
  const taken = await runQpdf([plan.doc.path, '--pages', plan.doc.path, `${first}-${last}`, '--', path], {
    ...run,
    cwd: workDir,
  });
  if (!qpdfSucceeded(taken))
    throw new InternalError(`qpdf could not take pages ${first}-${last} out: ${taken.stderr.trim()}`);
  const count = last - first + 1;
  const read = await inner.read(
    {
      ...plan,
      input: { ...plan.input, path },
      doc: { kind: 'pdf', path, pageCount: count },
      pages: Array.from({ length: count }, (_, index) => index + 1),
    },
    { ...job, workDir, turns: undefined },
    (done) => onProgress(done),
  );
  const texts: (string | undefined)[] = [];
  for (let page = 1; page <= count; page += 1) texts.push(await read.textOf(page));
  return { path: read.path, pages: read.pages, texts };
}

/** Keeps a chunk read for the turns after this one and for the join. */
async function keepChunk(
  { path, pages, texts }: ReadChunk,
  { first, last, pace }: { first: number; last: number; pace: number },
  keptDir: string,
): Promise<KeptChunk> {
  const kept: KeptChunk = { first, last, pages, texts, pace };
  const name = chunkName(first);
  await rename(path, join(keptDir, `${name}.pdf`));
  // Written last: a chunk is kept once its outcomes are, whatever was left of it before.
  await writeFile(join(keptDir, `${name}.json`), JSON.stringify(kept));
  return kept;
}

/**
 * The chunks' pages in one PDF, the first chunk's document the base: the original's information,
 * metadata and page labels as the engine kept them, and its PDF/A output intent. qpdf joins the page
 * labels of every chunk.
 */
async function joinChunks(paths: readonly string[], workDir: string, run: QpdfRun): Promise<string> {
  const [base] = paths;
  if (base === undefined) throw new InternalError('no chunk to join');
  if (paths.length === 1) return base;
  const joined = join(workDir, 'joined.pdf');
  const result = await runQpdf([base, '--pages', ...paths, '--', joined], run);
  if (!qpdfSucceeded(result))
    throw new InternalError(`qpdf could not join the chunks: ${result.stderr.trim()}`);
  return joined;
}
