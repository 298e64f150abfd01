// What a PDF holds besides what its pages show: form fields and their values, annotations per page, attached
// files and the outline. A rewrite can drop any of them while every page still looks the same: Ghostscript
// 10.00's pdfwrite dropped LibreOffice's form (fields, values and widgets) and its renders scored 74 dB. Read
// by qpdf, once per file, as JSON without stream data (about 1.1 KB a page: 0.56 MB and 50 ms for 500 pages
// of text).
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  type Dict,
  dictionary,
  inherited,
  type Json,
  type Objects,
  pageSize,
  repairNumbers,
  resolveObject,
} from '../../pdf/qpdf-json.js';
import { type QpdfRun, qpdfSucceeded, qpdfTimedOut, runQpdf } from '../../pdf/run-qpdf.js';
import type { Result } from './render.js';

export interface PdfStructure {
  /** `name = value` of every form field (qpdf's `fullname` and `value`), one entry per field. */
  fields: string[];
  /** Per page, in order: the /Subtype of each of its annotations (`/Link`, `/Widget`...). */
  annotations: string[][];
  /** The names of the files in the document's /EmbeddedFiles. */
  attachments: string[];
  /** The outline's (bookmarks') titles, depth first. */
  outlines: string[];
  /** Whether the PDF uses composite (Type0) fonts: that picks Ghostscript's PDF interpreter (../presets.ts). */
  compositeFonts: boolean;
  /**
   * Whether the trailer's /Info is the catalog's /Pages, the page tree (py-pdf's cmyk-image.pdf): the
   * default interpreter of Ghostscript 10.00 cannot open such a file ("Couldn't initialise file", no
   * page written), so the legacy one goes first.
   */
  infoIsPageTree: boolean;
  /**
   * Per page, the longest side of its /MediaBox (inherited through /Parent) in points times its
   * /UserUnit; undefined where the box is missing or malformed. The check's render size comes from it
   * (page-sizes.ts), so no renderer has to be asked first.
   */
  pageSides: (number | undefined)[];
  /** Per page, what it draws from (pageStreams): its content streams and XObjects, as stored. */
  streams: StoredStream[][];
}

/**
 * A stream a page draws from, as the file stores it: where it sits (`contents 0`, `/Im1`, `/Fm0 /Im3`
 * for an image inside a form), its filters and its stored length, and an image's pixel size. qpdf's
 * lossless rewrite keeps a stream's bytes wherever it keeps its filters (it recompresses nothing
 * without --recompress-flate), so a stream with the same filters and another length was changed.
 */
export interface StoredStream {
  at: string;
  /** The stream's object number and generation, as poppler's `pdfimages -list` prints them: `4 0`. */
  object: string;
  filters: string;
  length: number | undefined;
  pixels?: string;
  /**
   * A CCITT fax image's /K (its /DecodeParms', 0 when absent): below 0 it is Group 4, the densest
   * encoding pdfwrite writes for 1-bit images (../ghostscript-prospects.ts).
   */
  ccittK?: number;
}

/** The stream's filters in the order they decode it: `["/FlateDecode", "/DCTDecode"]`, none as `[]`. */
export function filterNames(stream: StoredStream): string[] {
  const parsed = JSON.parse(stream.filters) as unknown;
  return Array.isArray(parsed) ? parsed.map(String) : parsed === null ? [] : [String(parsed)];
}

/**
 * Beyond this the JSON is not parsed (memory): 60 times the 500-page text file. A file whose structure
 * cannot be read gets no candidate proven, so the answer is the input itself.
 */
const MAX_JSON_BYTES = 64 * 1024 * 1024;

interface QpdfJson {
  pages?: { object?: string }[];
  acroform?: { fields?: { fullname?: string; value?: Json }[] };
  attachments?: Record<string, { preferredname?: string }>;
  outlines?: Outline[];
  qpdf?: [unknown, Objects];
}

interface Outline {
  title?: string;
  kids?: Outline[];
}

function annotationsOf(pageRef: string | undefined, objects: Objects): string[] {
  const page = dictionary(resolveObject(pageRef, objects));
  const annots = resolveObject(page?.['/Annots'], objects);
  if (!Array.isArray(annots)) return [];
  return annots.map((annot) => {
    const subtype = dictionary(resolveObject(annot, objects))?.['/Subtype'];
    return typeof subtype === 'string' ? subtype : '(none)';
  });
}

/**
 * `name = value` of the field each widget of the page shows, where qpdf could not list the form: the
 * name its /T and its ancestors' joined with dots, the value its own /V or its nearest ancestor's, as
 * qpdf's own listing words them (ISO 32000-2 §12.7.4.1).
 */
function widgetFields(pageRef: string | undefined, objects: Objects): string[] {
  const page = dictionary(resolveObject(pageRef, objects));
  const annots = resolveObject(page?.['/Annots'], objects);
  if (!Array.isArray(annots)) return [];
  return annots.flatMap((annot) => {
    const widget = dictionary(resolveObject(annot, objects));
    if (widget?.['/Subtype'] !== '/Widget') return [];
    const names: string[] = [];
    let value: Json | undefined;
    const seen = new Set<Dict>();
    for (
      let node: Dict | undefined = widget;
      node !== undefined && !seen.has(node);
      node = dictionary(resolveObject(node['/Parent'], objects))
    ) {
      seen.add(node);
      const title = resolveObject(node['/T'], objects);
      if (typeof title === 'string') names.unshift(title.replace(/^u:/, ''));
      value ??= resolveObject(node['/V'], objects);
    }
    return names.length === 0 ? [] : [`${names.join('.')} = ${JSON.stringify(value ?? null)}`];
  });
}

/** The longest side of the page, in points times its /UserUnit; undefined for none or an empty one. */
function pageSide(pageRef: string | undefined, objects: Objects): number | undefined {
  const size = pageSize(pageRef, objects);
  const side = size === undefined ? 0 : Math.max(size.width, size.height);
  return side > 0 ? side : undefined;
}

/** Beyond this many streams a page is not followed further (forms drawing forms, each listed once). */
const MAX_PAGE_STREAMS = 1000;

function storedStream(at: string, ref: Json | undefined, objects: Objects): StoredStream | undefined {
  if (typeof ref !== 'string') return undefined;
  const object = objects[`obj:${ref}`];
  const dict = dictionary(object?.stream?.dict);
  if (dict === undefined) return undefined;
  const length = resolveObject(dict['/Length'], objects);
  const width = resolveObject(dict['/Width'], objects);
  const height = resolveObject(dict['/Height'], objects);
  const filters = JSON.stringify(resolveObject(dict['/Filter'], objects) ?? null);
  const k = resolveObject(dictionary(resolveObject(dict['/DecodeParms'], objects))?.['/K'], objects);
  return {
    at,
    object: ref.replace(/ R$/, ''),
    filters,
    length: typeof length === 'number' ? length : undefined,
    ...(typeof width === 'number' && typeof height === 'number' && { pixels: `${width}x${height}` }),
    ...(filters === '"/CCITTFaxDecode"' && { ccittK: typeof k === 'number' ? k : 0 }),
  };
}

/** The page's content streams, then each XObject of its resources, forms followed into theirs. */
function pageStreams(pageRef: string | undefined, objects: Objects): StoredStream[] {
  const page = dictionary(resolveObject(pageRef, objects));
  const contents = page?.['/Contents'];
  const listed = Array.isArray(contents)
    ? contents
    : Array.isArray(resolveObject(contents, objects))
      ? (resolveObject(contents, objects) as Json[])
      : [contents];
  const streams = listed.flatMap((ref, index) => storedStream(`contents ${index}`, ref, objects) ?? []);
  const seen = new Set<string>();
  const visit = (resources: Dict | undefined, prefix: string) => {
    const xObjects = dictionary(resolveObject(resources?.['/XObject'], objects));
    for (const [name, ref] of Object.entries(xObjects ?? {})) {
      if (typeof ref !== 'string' || seen.has(ref) || streams.length >= MAX_PAGE_STREAMS) continue;
      seen.add(ref);
      const at = `${prefix}${name}`;
      const stream = storedStream(at, ref, objects);
      if (stream === undefined) continue;
      streams.push(stream);
      const dict = dictionary(objects[`obj:${ref}`]?.stream?.dict);
      if (resolveObject(dict?.['/Subtype'], objects) === '/Form')
        visit(dictionary(resolveObject(dict?.['/Resources'], objects)), `${at} `);
    }
  };
  visit(dictionary(inherited(page, '/Resources', objects)), '');
  return streams;
}

function outlineTitles(outlines: readonly Outline[] | undefined, into: string[] = []): string[] {
  for (const outline of outlines ?? []) {
    into.push(outline.title ?? '');
    outlineTitles(outline.kids, into);
  }
  return into;
}

/** Whether the trailer's /Info names the same object as the catalog's /Pages. */
function infoIsPageTree(objects: Objects): boolean {
  const trailer = dictionary(objects.trailer?.value);
  const info = trailer?.['/Info'];
  const pages = dictionary(resolveObject(trailer?.['/Root'], objects))?.['/Pages'];
  return typeof info === 'string' && info === pages;
}

/** The structure in qpdf's JSON text (exported for tests). */
export function parseStructure(text: string): PdfStructure {
  const json = JSON.parse(repairNumbers(text)) as QpdfJson;
  const objects = json.qpdf?.[1] ?? {};
  return {
    fields:
      json.acroform === undefined
        ? (json.pages ?? []).flatMap((page) => widgetFields(page.object, objects))
        : (json.acroform.fields ?? []).map(
            (field) => `${field.fullname ?? ''} = ${JSON.stringify(field.value ?? null)}`,
          ),
    annotations: (json.pages ?? []).map((page) => annotationsOf(page.object, objects)),
    attachments: Object.values(json.attachments ?? {}).map((file) => file.preferredname ?? ''),
    outlines: outlineTitles(json.outlines),
    // PDF uses the name /Type0 for nothing but composite fonts (ISO 32000-2 §9.7).
    compositeFonts: text.includes('"/Type0"'),
    infoIsPageTree: infoIsPageTree(objects),
    pageSides: (json.pages ?? []).map((page) => pageSide(page.object, objects)),
    streams: (json.pages ?? []).map((page) => pageStreams(page.object, objects)),
  };
}

/** Whether the PDF has no form field, annotation, attached file or outline entry: nothing a rewrite could drop. */
export function holdsNoStructure(structure: PdfStructure): boolean {
  const { fields, annotations, attachments, outlines } = structure;
  return (
    fields.length + attachments.length + outlines.length === 0 &&
    annotations.every((page) => page.length === 0)
  );
}

/** The keys of qpdf's JSON the structure is read from. */
const KEYS = ['qpdf', 'pages', 'acroform', 'attachments', 'outlines'] as const;

async function writeJson(
  path: string,
  output: string,
  keys: readonly string[],
  run: QpdfRun,
): Promise<Awaited<ReturnType<typeof runQpdf>>> {
  const args = keys.map((key) => `--json-key=${key}`);
  return runQpdf(['--json', '--json-stream-data=none', ...args, resolve(path), output], run);
}

/** Reads the structure of the PDF at `path`; `name` names the JSON file in the job's folder. */
export async function readStructure(path: string, name: string, run: QpdfRun): Promise<Result<PdfStructure>> {
  const output = resolve(run.cwd, `${name}-structure.json`);
  let result: Awaited<ReturnType<typeof runQpdf>>;
  try {
    result = await writeJson(path, output, KEYS, run);
    // qpdf 11.3 cannot list the form of a file whose widgets belong to fields that no /AcroForm holds
    // ("operation for dictionary attempted on object of type null", exit 2), while it reads and
    // rewrites the file itself cleanly: such a form had no candidate proven, not even qpdf's lossless
    // rewrite, and came back as its original. Read without the form, its fields come from its widgets.
    if (!qpdfSucceeded(result)) {
      const formless = await writeJson(
        path,
        output,
        KEYS.filter((key) => key !== 'acroform'),
        run,
      );
      if (qpdfSucceeded(formless)) result = formless;
    }
  } catch (error) {
    // Out of time, the structure is unknown: no candidate can be proven, and the original answers.
    if (qpdfTimedOut(error))
      return { failure: `qpdf did not read its structure within ${run.timeoutMs / 1000} s` };
    throw error;
  }
  if (!qpdfSucceeded(result)) {
    return {
      failure: `qpdf could not read its structure (exit ${result.exitCode}): ${result.stderr.trim().slice(0, 300)}`,
    };
  }
  try {
    const { size } = await stat(output);
    if (size > MAX_JSON_BYTES)
      return { failure: `its structure is too large to compare (${size} bytes of JSON)` };
    return { value: parseStructure(await readFile(output, 'utf8')) };
  } catch (error) {
    return { failure: `its structure could not be read (${(error as Error).message})` };
  }
}
