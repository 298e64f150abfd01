// Reading qpdf's JSON (format 2, qpdf manual "qpdf JSON") without stream data: objects under
// "qpdf"[1] as "obj:N G R", each a { value } or a { stream: { dict } }; references as "N G R" strings;
// names as "/Name" strings. Shared by what reads a document's structure from it: the compress content
// check (pdf-structure.ts) and the chunked OCR's listing (document-listing.ts).

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Dict = { [key: string]: Json };
export type Objects = Record<string, { value?: Json; stream?: { dict?: Json } } | undefined>;

const REFERENCE = /^\d+ \d+ R$/;

/** A JSON string, or a number as PDF writes reals and qpdf 11.3 passes them on: `-0.`, `.5`, `5.`. */
const STRING_OR_REAL = /"(?:[^"\\]|\\.)*"|(-?)(\d*)\.(\d*)/g;

/**
 * qpdf's JSON with every real number made valid JSON. qpdf copies reals as the PDF wrote them, and
 * `-0.` is a valid PDF real but not a JSON number (OCRmyPDF's negzero.pdf); strings are left alone.
 */
export function repairNumbers(text: string): string {
  return text.replace(STRING_OR_REAL, (token, sign: string | undefined, whole: string, fraction: string) => {
    if (token.startsWith('"') || (whole !== '' && fraction !== '')) return token;
    return `${sign ?? ''}${whole || '0'}.${fraction || '0'}`;
  });
}

/** `value`, or the object (a stream's dictionary) it refers to. */
export function resolveObject(value: Json | undefined, objects: Objects): Json | undefined {
  if (typeof value !== 'string' || !REFERENCE.test(value)) return value;
  const object = objects[`obj:${value}`];
  return object?.value ?? object?.stream?.dict;
}

export function dictionary(value: Json | undefined): Dict | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/** Page attributes a page inherits from its ancestors (ISO 32000-2 §7.7.3.4); a /Parent loop ends the walk. */
export function inherited(page: Dict | undefined, key: string, objects: Objects): Json | undefined {
  const seen = new Set<Dict>();
  for (
    let node = page;
    node !== undefined && !seen.has(node);
    node = dictionary(resolveObject(node['/Parent'], objects))
  ) {
    seen.add(node);
    if (node[key] !== undefined) return resolveObject(node[key], objects);
  }
  return undefined;
}

/**
 * The page's size in points, from its /MediaBox (inherited through /Parent) times its /UserUnit;
 * undefined where the box is missing or malformed.
 */
export function pageSize(
  pageRef: string | undefined,
  objects: Objects,
): { width: number; height: number } | undefined {
  const page = dictionary(resolveObject(pageRef, objects));
  const box = inherited(page, '/MediaBox', objects);
  if (!Array.isArray(box) || box.length !== 4) return undefined;
  const [x1, y1, x2, y2] = box.map((n) => resolveObject(n, objects));
  if (![x1, y1, x2, y2].every((n) => typeof n === 'number' && Number.isFinite(n))) return undefined;
  const unit = resolveObject(page?.['/UserUnit'], objects);
  const scale = typeof unit === 'number' && unit > 0 ? unit : 1;
  return {
    width: Math.abs((x2 as number) - (x1 as number)) * scale,
    height: Math.abs((y2 as number) - (y1 as number)) * scale,
  };
}
