// Counts the text-showing operators (Tj, TJ, ' and ", ISO 32000-1 §9.4.3) in a content stream, reading
// it with the lexical rules of §7.2 so that strings, comments and inline image data (§8.9.7) that happen
// to contain those bytes are not mistaken for operators. Used by the structure check of the pdf-lib
// fallback, where no renderer is installed.

import { isDelimiter, isWhiteSpace } from '../../pdf/pdf-characters.js';

const TEXT_SHOWING = new Set(['Tj', 'TJ', "'", '"']);

/** Index just past the literal string opening at `start` (balanced parentheses, backslash escapes). */
function skipLiteralString(bytes: Uint8Array, start: number): number {
  let depth = 0;
  for (let at = start; at < bytes.length; at += 1) {
    const byte = bytes[at];
    if (byte === 0x5c) at += 1;
    else if (byte === 0x28) depth += 1;
    else if (byte === 0x29 && --depth === 0) return at + 1;
  }
  return bytes.length;
}

/** Index just past the `EI` that ends the inline image data starting at `start`. */
function skipInlineImage(bytes: Uint8Array, start: number): number {
  for (let at = start; at + 1 < bytes.length; at += 1) {
    if (
      bytes[at] === 0x45 &&
      bytes[at + 1] === 0x49 &&
      isWhiteSpace(bytes[at - 1] ?? 0x20) &&
      (at + 2 === bytes.length || isWhiteSpace(bytes[at + 2] as number))
    ) {
      return at + 2;
    }
  }
  return bytes.length;
}

export function countTextOperators(bytes: Uint8Array): number {
  let count = 0;
  let at = 0;
  while (at < bytes.length) {
    const byte = bytes[at] as number;
    if (isWhiteSpace(byte)) {
      at += 1;
    } else if (byte === 0x25) {
      while (at < bytes.length && bytes[at] !== 0x0a && bytes[at] !== 0x0d) at += 1;
    } else if (byte === 0x28) {
      at = skipLiteralString(bytes, at);
    } else if (byte === 0x3c && bytes[at + 1] !== 0x3c) {
      while (at < bytes.length && bytes[at] !== 0x3e) at += 1;
      at += 1;
    } else if (byte === 0x2f) {
      // A name such as /Tj: an operand, never an operator.
      at = skipToken(bytes, at + 1);
    } else if (isDelimiter(byte)) {
      at += 1;
    } else {
      const end = skipToken(bytes, at);
      const token = Buffer.from(bytes.subarray(at, end)).toString('latin1');
      if (TEXT_SHOWING.has(token)) count += 1;
      // One whitespace byte separates ID from the image data.
      at = token === 'ID' ? skipInlineImage(bytes, end + 1) : end;
    }
  }
  return count;
}

function skipToken(bytes: Uint8Array, start: number): number {
  let at = start;
  while (at < bytes.length && !isWhiteSpace(bytes[at] as number) && !isDelimiter(bytes[at] as number))
    at += 1;
  return at;
}
