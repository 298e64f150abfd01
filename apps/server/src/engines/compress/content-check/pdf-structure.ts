// What a PDF holds besides what its pages show (issue #9): form fields and their values, annotations
// per page, attached files and the outline. A rewrite can drop any of them while every page still looks
// the same: Ghostscript 10.00's pdfwrite dropped LibreOffice's form (fields, values and widgets) and
// its renders scored 74 dB. Read by qpdf, once per file, as JSON without stream data (about 1.1 KB a
// page: 0.56 MB and 50 ms for 500 pages of text).
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  dictionary,
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
   * Per page, the longest side of its /MediaBox (inherited through /Parent) in points times its
   * /UserUnit; undefined where the box is missing or malformed. The check's render size comes from it
   * (page-sizes.ts), so no renderer has to be asked first.
   */
  pageSides: (number | undefined)[];
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

/** The longest side of the page, in points times its /UserUnit; undefined for none or an empty one. */
function pageSide(pageRef: string | undefined, objects: Objects): number | undefined {
  const size = pageSize(pageRef, objects);
  const side = size === undefined ? 0 : Math.max(size.width, size.height);
  return side > 0 ? side : undefined;
}

function outlineTitles(outlines: readonly Outline[] | undefined, into: string[] = []): string[] {
  for (const outline of outlines ?? []) {
    into.push(outline.title ?? '');
    outlineTitles(outline.kids, into);
  }
  return into;
}

/** The structure in qpdf's JSON text (exported for tests). */
export function parseStructure(text: string): PdfStructure {
  const json = JSON.parse(repairNumbers(text)) as QpdfJson;
  const objects = json.qpdf?.[1] ?? {};
  return {
    fields: (json.acroform?.fields ?? []).map(
      (field) => `${field.fullname ?? ''} = ${JSON.stringify(field.value ?? null)}`,
    ),
    annotations: (json.pages ?? []).map((page) => annotationsOf(page.object, objects)),
    attachments: Object.values(json.attachments ?? {}).map((file) => file.preferredname ?? ''),
    outlines: outlineTitles(json.outlines),
    // PDF uses the name /Type0 for nothing but composite fonts (ISO 32000-2 §9.7).
    compositeFonts: text.includes('"/Type0"'),
    pageSides: (json.pages ?? []).map((page) => pageSide(page.object, objects)),
  };
}

/** Reads the structure of the PDF at `path`; `name` names the JSON file in the job's folder. */
export async function readStructure(path: string, name: string, run: QpdfRun): Promise<Result<PdfStructure>> {
  const output = resolve(run.cwd, `${name}-structure.json`);
  const keys = ['qpdf', 'pages', 'acroform', 'attachments', 'outlines'].map((key) => `--json-key=${key}`);
  let result: Awaited<ReturnType<typeof runQpdf>>;
  try {
    result = await runQpdf(['--json', '--json-stream-data=none', ...keys, resolve(path), output], run);
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
