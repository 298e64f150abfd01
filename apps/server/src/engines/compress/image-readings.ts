// What the floor under Ghostscript's output (ghostscript-prospects.ts) needs to know of the input's
// images beyond the structure qpdf reads. Read only where it could decide that Ghostscript cannot win:
// - How finely each image is drawn. pdfwrite downsamples an image drawn above the level's resolution
//   (past its threshold), and a downsampled image can come out smaller. The structure knows an image's
//   pixels, not the size its page draws it at; poppler's `pdfimages -list` does (x-ppi and y-ppi, from
//   the drawing's transformation, as Ghostscript works them out). An image no page draws is not
//   listed, and pdfwrite does not write it either; an explicit mask (/Mask) is listed under its
//   image's object number, so a mask itself is never counted (the floor only gets lower).
// - The bytes of a JPEG stored under a Flate layer. pdfwrite drops the layer and passes the JPEG
//   through where it passes JPEGs through (a Canon scanner's page, 17 KB stored, came back as its
//   146 KB JPEG at `low`, from either interpreter), so the JPEG's own bytes are what it writes: qpdf
//   writes the stored bytes of those streams to files, which are inflated here to count them, up to the
//   JPEG's end marker (jpeg-end.ts): bytes after it are not written.
// A reading that fails leaves its images uncounted: the floor only errs low, toward running Ghostscript.
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInflate } from 'node:zlib';
import { type QpdfRun, runQpdf } from '../pdf/run-qpdf.js';
import { runTool, ToolAbortedError } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';
import type { WorkContext } from '../types.js';
import { imageListRows } from './content-check/drawn-images.js';
import { filterNames, type PdfStructure } from './content-check/pdf-structure.js';
import { JpegEnd } from './jpeg-end.js';

export interface ImageReadings {
  /** The image's highest resolution over all its drawings, in pixels per inch; undefined where unknown. */
  ppi(object: string): number | undefined;
  /** The bytes of a JPEG stored under a Flate layer, inflated; undefined where unknown. */
  jpegBytes(object: string): number | undefined;
}

/** Beyond this many JPEGs under Flate, the rest are not read (one qpdf argument and file each). */
const MAX_INFLATED_JPEGS = 64;

/** Whether the stream is a JPEG stored under one Flate layer. */
export function isJpegUnderFlate(filters: readonly string[]): boolean {
  return filters.length === 2 && filters[0] === '/FlateDecode' && filters[1] === '/DCTDecode';
}

/** Each object's highest resolution in `pdfimages -list` output (inline images have no object). */
export function drawnResolutions(list: string): Map<string, number> {
  const ppi = new Map<string, number>();
  for (const row of imageListRows(list)) {
    if (row.object === undefined || !Number.isFinite(row.ppi)) continue;
    ppi.set(row.object, Math.max(row.ppi, ppi.get(row.object) ?? 0));
  }
  return ppi;
}

async function readResolutions(
  pdfimages: ToolInfo | undefined,
  pdfPath: string,
  pageCount: number,
  timeoutMs: number,
  job: WorkContext,
): Promise<Map<string, number>> {
  if (pdfimages === undefined) return new Map();
  const args = ['-list', '-f', '1', '-l', String(pageCount), resolve(pdfPath)];
  try {
    const { exitCode, stdout } = await runTool(pdfimages.path, args, {
      cwd: job.workDir,
      timeoutMs,
      signal: job.signal,
    });
    // A long list keeps only its tail (runTool): without its headings, rows are missing.
    return exitCode === 0 && stdout.startsWith('page') ? drawnResolutions(stdout) : new Map();
  } catch (error) {
    if (error instanceof ToolAbortedError) throw error;
    return new Map();
  }
}

/**
 * The bytes of the JPEG that `path` inflates to, to its end (jpeg-end.ts: pdfwrite copies no further)
 * and at most `cap` (a Flate bomb stops there); undefined where it is not a zlib stream or no JPEG.
 */
function inflatedBytes(path: string, cap: number): Promise<number | undefined> {
  return new Promise((done) => {
    let bytes = 0;
    const end = new JpegEnd();
    const stored = createReadStream(path);
    const inflate = createInflate();
    const stop = (result: number | undefined) => {
      stored.destroy();
      inflate.destroy();
      done(result);
    };
    inflate.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      const length = end.push(chunk);
      if (length !== 'more') stop(length === undefined ? undefined : Math.min(length, cap));
      else if (bytes >= cap) stop(cap);
    });
    inflate.on('end', () => stop(bytes));
    inflate.on('error', () => stop(undefined));
    stored.on('error', () => stop(undefined));
    stored.pipe(inflate);
  });
}

async function readJpegBytes(
  objects: readonly string[],
  pdfPath: string,
  run: QpdfRun | undefined,
  cap: number,
) {
  const bytes = new Map<string, number>();
  if (run === undefined || objects.length === 0) return bytes;
  const prefix = resolve(run.cwd, 'jpeg-under-flate');
  // Each stream's stored bytes to `prefix-<object number>`; the JSON on stdout is not needed.
  const args = [
    '--json',
    '--json-key=qpdf',
    ...objects.map((object) => `--json-object=${object.replace(' ', ',')}`),
    '--json-stream-data=file',
    `--json-stream-prefix=${prefix}`,
    '--decode-level=none',
    resolve(pdfPath),
  ];
  try {
    await runQpdf(args, run);
    // One budget for them all: once the JPEGs counted reach `cap`, the floor does too, and a file of
    // many Flate bombs is inflated no further than one.
    let left = cap;
    for (const object of objects) {
      const file = `${prefix}-${object.split(' ')[0]}`;
      const inflated = left > 0 ? await inflatedBytes(file, left) : undefined;
      await rm(file, { force: true });
      if (inflated === undefined) continue;
      bytes.set(object, inflated);
      left -= inflated;
    }
  } catch (error) {
    if (error instanceof ToolAbortedError) throw error;
  }
  return bytes;
}

/** The readings of the input's images at `pdfPath`, both tools side by side. */
export async function readImages(o: {
  pdfPath: string;
  /** Beyond this a JPEG's bytes are not counted: the best lossless size, which no floor need pass. */
  enough: number;
  pageCount: number;
  structure: PdfStructure;
  pdfimages: ToolInfo | undefined;
  qpdf: QpdfRun | undefined;
  timeoutMs: number;
  job: WorkContext;
}): Promise<ImageReadings> {
  const jpegs = new Set(
    o.structure.streams.flatMap((streams) =>
      streams.filter((stream) => isJpegUnderFlate(filterNames(stream))).map((stream) => stream.object),
    ),
  );
  const [ppi, jpegBytes] = await Promise.all([
    readResolutions(o.pdfimages, o.pdfPath, o.pageCount, o.timeoutMs, o.job),
    readJpegBytes([...jpegs].slice(0, MAX_INFLATED_JPEGS), o.pdfPath, o.qpdf, o.enough),
  ]);
  return { ppi: (object) => ppi.get(object), jpegBytes: (object) => jpegBytes.get(object) };
}
