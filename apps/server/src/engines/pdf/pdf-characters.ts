// PDF's character classes (ISO 32000-2 §7.2.3, Tables 1 and 2), shared by every reader of PDF syntax
// here: the header check, the in-process page walk and the content-stream scan of the pdf-lib fallback.

/** White space: NUL, HT, LF, FF, CR and space (Table 1). */
export function isWhiteSpace(byte: number): boolean {
  return byte === 0x00 || byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d || byte === 0x20;
}

/** Delimiters (Table 2): ( ) < > [ ] { } / % */
export function isDelimiter(byte: number): boolean {
  return (
    byte === 0x28 ||
    byte === 0x29 ||
    byte === 0x3c ||
    byte === 0x3e ||
    byte === 0x5b ||
    byte === 0x5d ||
    byte === 0x7b ||
    byte === 0x7d ||
    byte === 0x2f ||
    byte === 0x25
  );
}

/** A regular character: part of a number, keyword or name (§7.2.3); `undefined` past the end is not. */
export function isRegular(byte: number | undefined): byte is number {
  return byte !== undefined && !isWhiteSpace(byte) && !isDelimiter(byte);
}
