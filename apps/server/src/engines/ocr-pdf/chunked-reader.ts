// A long document read in chunks, so that its job can hand its slot on between them (openapi.yaml,
// "Jobs", Fairness; WorkContext.turns). Each chunk's pages are taken out of the document with qpdf,
// which reads only the objects of those pages, never the whole file again; the engine reads them as a
// document of its own; the chunk's searchable PDF, page outcomes and texts are kept as soon as it is
// finished, so a job that handed its slot on starts its next turn, here or on another worker, after
// its last kept chunk. The chunks are joined at the end, the first one's document as the base.
//
// Chunks are sized by time, not pages: a first chunk of FIRST_CHUNK_PAGES, then as many pages as the
// engine read in CHUNK_TARGET_MS so far, a whole number of rounds of its parallel readers, so a lone
// job loses little to the cuts (each chunk is a new engine run). Only a plain document is cut: one
// whose pages carry no annotations and whose catalog holds no outline, form, names or structure tree,
// which a join from parts would leave pointing at pages no longer there. Anything else, an image, or a
// request for some pages only, is read whole.
import { mkdtemp, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InternalError } from '../../errors.js';
import { type QpdfRun, qpdfSucceeded, runQpdf } from '../pdf/run-qpdf.js';
import type { ToolInfo } from '../tools.js';
import type { Turns, WorkContext } from '../types.js';
import type { DocumentReader, ReadDocument, ReadPlan } from './document-reader.js';
import type { OcrPdfPageOutcome, OcrPdfProgress } from './types.js';

/** How long a chunk should take: the longest another user waits for this job's slot. */
export const CHUNK_TARGET_MS = 10_000;
/** The first chunk, read before the engine's pace is known. */
const FIRST_CHUNK_PAGES = 4;

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
}

const chunkName = (first: number) => `chunk-${String(first).padStart(6, '0')}`;

/** The chunks kept in earlier turns, in page order. */
async function keptChunks(dir: string): Promise<KeptChunk[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  return Promise.all(
    names.map(async (name) => JSON.parse(await readFile(join(dir, name), 'utf8')) as KeptChunk),
  );
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** qpdf's JSON (format 2) without stream data: its header, then every object and the trailer by name. */
interface QpdfJson {
  qpdf: [unknown, Record<string, { value?: Json }>];
}

/** Whether the document holds nothing a join from chunks would break (see the top). */
async function isPlain(path: string, run: QpdfRun): Promise<boolean> {
  // To a file: a tool's captured output is capped, and a long document's objects run to megabytes.
  const listing = join(run.cwd, 'objects.json');
  const result = await runQpdf(['--json-output', '--json-stream-data=none', path, listing], run);
  if (!qpdfSucceeded(result)) return false;
  const [, objects] = (JSON.parse(await readFile(listing, 'utf8')) as QpdfJson).qpdf;
  // qpdf's JSON names an indirect reference `12 0 R` and the object it points to `obj:12 0 R`.
  const resolved = (value: Json | undefined) =>
    typeof value === 'string' && value.endsWith(' R') ? objects[`obj:${value}`]?.value : value;
  const dict = (value: Json | undefined) => {
    const found = resolved(value);
    return found !== null && typeof found === 'object' && !Array.isArray(found) ? found : undefined;
  };
  const catalog = dict(dict(objects.trailer?.value)?.['/Root']);
  if (catalog === undefined) return false;
  if (['/AcroForm', '/StructTreeRoot', '/Names', '/Dests'].some((key) => key in catalog)) return false;
  // Many scanners write an empty outline.
  if (dict(catalog['/Outlines'])?.['/First'] !== undefined) return false;
  return Object.values(objects).every(({ value }) => {
    const object = dict(value);
    if (object?.['/Type'] !== '/Page') return true;
    const annotations = resolved(object['/Annots']);
    return annotations === undefined || (Array.isArray(annotations) && annotations.length === 0);
  });
}

export function chunkedReader(inner: DocumentReader, o: ChunkOptions): DocumentReader {
  return {
    info: inner.info,
    method: inner.method,
    async read(plan, job, onProgress) {
      const { turns } = job;
      const run = { qpdf: o.qpdf, cwd: job.workDir, timeoutMs: o.timeoutMs, signal: job.signal };
      const cut =
        turns !== undefined &&
        plan.doc.kind === 'pdf' &&
        plan.pages.length === plan.doc.pageCount &&
        plan.doc.pageCount > FIRST_CHUNK_PAGES &&
        (await isPlain(plan.doc.path, run));
      if (!cut) return inner.read(plan, job, onProgress);
      return readInChunks(inner, plan, { ...job, turns }, onProgress, run, o.concurrency);
    },
  };
}

async function readInChunks(
  inner: DocumentReader,
  plan: ReadPlan,
  job: WorkContext & { turns: Turns },
  onProgress: OcrPdfProgress,
  run: QpdfRun,
  concurrency: number,
): Promise<ReadDocument> {
  const keptDir = await job.turns.keptDir();
  const total = plan.doc.pageCount;
  const chunks = await keptChunks(keptDir);
  let next = (chunks.at(-1)?.last ?? 0) + 1;
  let size = FIRST_CHUNK_PAGES;
  onProgress(next - 1, total);
  while (next <= total) {
    const last = Math.min(total, next + size - 1);
    const started = performance.now();
    chunks.push(
      await readChunk(inner, plan, job, { first: next, last }, run, (done) =>
        onProgress(next - 1 + done, total),
      ),
    );
    const msPerPage = (performance.now() - started) / (last - next + 1);
    const rounds = Math.max(1, Math.floor(CHUNK_TARGET_MS / msPerPage / concurrency));
    size = rounds * concurrency;
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

/** Reads pages `first`-`last` as a document of their own, and keeps what came of them. */
async function readChunk(
  inner: DocumentReader,
  plan: ReadPlan,
  job: WorkContext & { turns: Turns },
  { first, last }: { first: number; last: number },
  run: QpdfRun,
  onProgress: (done: number) => void,
): Promise<KeptChunk> {
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
  const kept: KeptChunk = { first, last, pages: read.pages, texts };
  const name = chunkName(first);
  const keptDir = await job.turns.keptDir();
  await rename(read.path, join(keptDir, `${name}.pdf`));
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
