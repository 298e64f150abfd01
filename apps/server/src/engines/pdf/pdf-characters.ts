// PDF's character classes (ISO 32000-2 §7.2.3, Tables 1 and 2), shared by every reader of PDF syntax
// here: the header check, the in-process page walk and the content-stream scan of the pdf-lib fallback.
// One table lookup per byte: the page walk asks for every byte of a page tree, and a chain of
// comparisons per byte was a fifth of its time (as the merge bench measured).

const WHITE_SPACE = 1;
const DELIMITER = 2;

/** Each byte's class: 0 for a regular character. */
const CLASS = new Uint8Array(256);
// White space: NUL, HT, LF, FF, CR and space (Table 1).
for (const byte of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) CLASS[byte] = WHITE_SPACE;
// Delimiters (Table 2): ( ) < > [ ] { } / %
for (const char of '()<>[]{}/%') CLASS[char.charCodeAt(0)] = DELIMITER;

/** White space: NUL, HT, LF, FF, CR and space (Table 1). */
export function isWhiteSpace(byte: number): boolean {
  return CLASS[byte] === WHITE_SPACE;
}

/** Delimiters (Table 2): ( ) < > [ ] { } / % */
export function isDelimiter(byte: number): boolean {
  return CLASS[byte] === DELIMITER;
}

/** A regular character: part of a number, keyword or name (§7.2.3); `undefined` past the end is not. */
export function isRegular(byte: number | undefined): byte is number {
  return byte !== undefined && CLASS[byte] === 0;
}
