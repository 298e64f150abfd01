import { describe, expect, it } from 'vitest';
import { isDelimiter, isRegular, isWhiteSpace } from './pdf-characters.js';

// ISO 32000-2 §7.2.3, Tables 1 and 2.
const WHITE_SPACE = [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20];
const DELIMITERS = [...'()<>[]{}/%'].map((char) => char.charCodeAt(0));

describe('PDF character classes', () => {
  it('puts every byte in exactly one class', () => {
    for (let byte = 0; byte < 256; byte++) {
      expect(isWhiteSpace(byte)).toBe(WHITE_SPACE.includes(byte));
      expect(isDelimiter(byte)).toBe(DELIMITERS.includes(byte));
      expect(isRegular(byte)).toBe(!WHITE_SPACE.includes(byte) && !DELIMITERS.includes(byte));
    }
  });

  it('reads past the end of the bytes as no character at all', () => {
    expect(isRegular(undefined)).toBe(false);
  });
});
