// Names (ISO 32000-2 §7.3.5) read by the page walk, interned: a page tree repeats the same few keys
// (/Type, /Page, /Parent, /Resources, /MediaBox, /Contents...) on every page, and making a string and a
// PdfName for each occurrence was a quarter of the walk's time (as the merge bench measured). A name is
// looked up by a hash of its bytes and taken from the table only when its bytes are the same.

/** Longer names (a font's unique tag) rarely repeat: made each time. */
const MAX_INTERNED_BYTES = 32;
/** The table stops growing here, so a file of distinct names cannot grow it without end. */
const MAX_INTERNED = 4096;

export class PdfName {
  constructor(readonly value: string) {}
}

const interned = new Map<number, PdfName>();

function sameBytes(name: string, bytes: Buffer, start: number, end: number): boolean {
  if (name.length !== end - start) return false;
  for (let i = start; i < end; i++) if (name.charCodeAt(i - start) !== bytes[i]) return false;
  return true;
}

/**
 * The name whose bytes, without escapes, are bytes[start, end): one made before when there is one.
 * Undefined when they hold a `#` escape, which the caller decodes.
 */
export function plainName(bytes: Buffer, start: number, end: number): PdfName | undefined {
  // FNV-1a over the bytes.
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    const byte = bytes[i] as number;
    if (byte === 0x23) return undefined;
    hash = Math.imul(hash ^ byte, 0x01000193);
  }
  if (end - start > MAX_INTERNED_BYTES) return new PdfName(bytes.toString('latin1', start, end));
  const known = interned.get(hash);
  if (known !== undefined && sameBytes(known.value, bytes, start, end)) return known;
  const name = new PdfName(bytes.toString('latin1', start, end));
  if (known === undefined && interned.size < MAX_INTERNED) interned.set(hash, name);
  return name;
}
