// The native engine's last, lossless pass (output no larger than OCRmyPDF's `--optimize 1`).
// OCRmyPDF's level 1 wraps every JPEG in Flate (its optimize.py `deflate_jpegs`): the JPEG's own bytes,
// deflated, so a reader inflates them back to the very same JPEG and the page renders identically; scans
// compress well this way (the generated bench scans' JPEGs by 43%). Each page's text layer also brings its
// own copy of tesseract's GlyphLessFont; identical fonts are shared. Then qpdf packs the objects into
// compressed object streams. Without `--recompress-flate`: it drops PNG predictors (compress/qpdf-pass.ts).
//
// Through qpdf's JSON (format 2) so no PDF is held in memory: qpdf writes every stream's raw data to its
// own file, the dictionaries are read here, and only the objects that change go back in
// (`--update-from-json`), the wrapped JPEGs as new files deflated a stream at a time.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { constants, createDeflate } from 'node:zlib';
import { InternalError } from '../../errors.js';
import { type QpdfRun, qpdfSucceeded, runQpdf } from '../pdf/run-qpdf.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface StreamObject {
  stream: { dict: Record<string, Json>; datafile?: string };
}
interface ValueObject {
  value: Json;
}
type PdfObject = StreamObject | ValueObject;
type Objects = Record<string, PdfObject>;

/** qpdf's JSON names an indirect reference `12 0 R` and the object it points to `obj:12 0 R`. */
const REFERENCE = /^\d+ \d+ R$/;

async function qpdf(args: string[], run: QpdfRun): Promise<void> {
  const result = await runQpdf(args, run);
  if (!qpdfSucceeded(result))
    throw new InternalError(`qpdf exited with code ${result.exitCode}: ${result.stderr.trim()}`);
}

function isStream(object: PdfObject | undefined): object is StreamObject {
  return object !== undefined && 'stream' in object;
}

function dictOf(object: PdfObject | undefined): Record<string, Json> | undefined {
  if (object === undefined) return undefined;
  if (isStream(object)) return object.stream.dict;
  const { value } = object;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/** A stream whose only filter is DCTDecode: a JPEG as it is. */
function isBareJpeg(dict: Record<string, Json>): boolean {
  const filter = dict['/Filter'];
  return (
    filter === '/DCTDecode' || (Array.isArray(filter) && filter.length === 1 && filter[0] === '/DCTDecode')
  );
}

/** Deflates `from` at level 9 into `to`, a chunk at a time; its size. */
async function deflateFile(from: string, to: string): Promise<number> {
  await pipeline(
    createReadStream(from),
    createDeflate({ level: constants.Z_BEST_COMPRESSION }),
    createWriteStream(to),
  );
  return (await stat(to)).size;
}

/** Every bare JPEG whose deflated bytes are smaller, as `[/FlateDecode /DCTDecode]`: the changed objects. */
async function wrapJpegsInFlate(objects: Objects, folder: string): Promise<Objects> {
  const changed: Objects = {};
  for (const [key, object] of Object.entries(objects)) {
    if (!isStream(object) || object.stream.datafile === undefined || !isBareJpeg(object.stream.dict))
      continue;
    const { dict, datafile } = object.stream;
    const wrapped = join(folder, `flate-${key.replace(/\D+/g, '-')}`);
    if ((await deflateFile(datafile, wrapped)) >= (await stat(datafile)).size) continue;
    const parms = dict['/DecodeParms'];
    changed[key] = {
      stream: {
        dict: {
          ...dict,
          '/Filter': ['/FlateDecode', '/DCTDecode'],
          ...(parms === undefined || parms === null
            ? {}
            : { '/DecodeParms': [null, Array.isArray(parms) ? (parms[0] ?? null) : parms] }),
        },
        datafile: wrapped,
      },
    };
  }
  return changed;
}

/**
 * A fingerprint of the object and everything it refers to: equal fingerprints, interchangeable objects.
 * Undefined for an object in a reference cycle (a font has none; a page and its parent do).
 */
function fingerprinter(objects: Objects) {
  const memo = new Map<string, string | undefined>();
  const visiting = new Set<string>();
  const ofValue = async (value: Json): Promise<Json | undefined> => {
    if (typeof value === 'string' && REFERENCE.test(value)) return ofObject(`obj:${value}`);
    if (Array.isArray(value)) {
      const items = await Promise.all(value.map(ofValue));
      return items.includes(undefined) ? undefined : (items as Json[]);
    }
    if (value !== null && typeof value === 'object') {
      const entries = await Promise.all(
        Object.entries(value).map(async ([name, item]) => [name, await ofValue(item)] as const),
      );
      return entries.some(([, item]) => item === undefined)
        ? undefined
        : Object.fromEntries(entries as [string, Json][]);
    }
    return value;
  };
  const ofObject = async (key: string): Promise<string | undefined> => {
    if (memo.has(key)) return memo.get(key);
    if (visiting.has(key)) return undefined;
    visiting.add(key);
    const object = objects[key];
    let content: Json | undefined = null;
    if (isStream(object)) {
      const dict = await ofValue(object.stream.dict);
      const data = object.stream.datafile === undefined ? '' : await readFile(object.stream.datafile);
      content = dict === undefined ? undefined : [dict, createHash('sha256').update(data).digest('hex')];
    } else if (object !== undefined) {
      content = await ofValue(object.value);
    }
    visiting.delete(key);
    const print =
      content === undefined ? undefined : createHash('sha256').update(JSON.stringify(content)).digest('hex');
    memo.set(key, print);
    return print;
  };
  return ofObject;
}

/** Each font identical to an earlier one, mapped to that one's reference (`16 0 R`). */
async function duplicateFonts(objects: Objects): Promise<Map<string, string>> {
  const fingerprint = fingerprinter(objects);
  const first = new Map<string, string>();
  const duplicates = new Map<string, string>();
  for (const key of Object.keys(objects)) {
    if (dictOf(objects[key])?.['/Type'] !== '/Font') continue;
    const print = await fingerprint(key);
    if (print === undefined) continue;
    const reference = key.slice('obj:'.length);
    const kept = first.get(print);
    if (kept === undefined) first.set(print, reference);
    else duplicates.set(reference, kept);
  }
  return duplicates;
}

function replaceReferences(value: Json, aliases: Map<string, string>): Json {
  if (typeof value === 'string') return aliases.get(value) ?? value;
  if (Array.isArray(value)) return value.map((item) => replaceReferences(item, aliases));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, replaceReferences(item, aliases)]),
    );
  return value;
}

/** Every object that refers to a duplicate font, pointed at the font kept instead. */
function shareFonts(objects: Objects, changed: Objects, aliases: Map<string, string>): void {
  if (aliases.size === 0) return;
  for (const [key, object] of Object.entries(objects)) {
    // The duplicates themselves are left behind: nothing refers to them any more, qpdf writes none.
    if (key === 'trailer' || aliases.has(key.slice('obj:'.length))) continue;
    const current = changed[key] ?? object;
    const before = isStream(current) ? current.stream.dict : current.value;
    const after = replaceReferences(before, aliases);
    if (JSON.stringify(after) === JSON.stringify(before)) continue;
    changed[key] = isStream(current)
      ? { stream: { ...current.stream, dict: after as Record<string, Json> } }
      : { value: after };
  }
}

/** Writes `input` repacked losslessly into `output`; both paths absolute or inside `run.cwd`. */
export async function repackLosslessly(input: string, output: string, run: QpdfRun): Promise<void> {
  const folder = resolve(run.cwd, 'repack');
  await mkdir(folder, { recursive: true });
  try {
    await repackThrough(folder, resolve(run.cwd, input), resolve(run.cwd, output), run);
  } finally {
    // The dump is a second copy of every stream: gone before the next request's work needs the disk.
    await rm(folder, { recursive: true, force: true });
  }
}

async function repackThrough(folder: string, input: string, output: string, run: QpdfRun): Promise<void> {
  const dump = join(folder, 'objects.json');
  await qpdf(
    [
      input,
      '--json-output=2',
      '--decode-level=none',
      '--json-stream-data=file',
      `--json-stream-prefix=${join(folder, 'stream')}`,
      dump,
    ],
    run,
  );
  const [header, objects] = (JSON.parse(await readFile(dump, 'utf8')) as { qpdf: [Json, Objects] }).qpdf;
  const changed = await wrapJpegsInFlate(objects, folder);
  shareFonts(objects, changed, await duplicateFonts(objects));
  const update = join(folder, 'update.json');
  await writeFile(update, JSON.stringify({ qpdf: [header, changed] }));
  await qpdf(
    [input, `--update-from-json=${update}`, '--object-streams=generate', '--compression-level=9', output],
    run,
  );
}
