import { describe, expect, it } from 'vitest';
import { JpegEnd } from './jpeg-end.js';

const SOI = [0xff, 0xd8];
const THUMBNAIL = [0xff, 0xe1, 0, 6, 0xff, 0xd8, 0xff, 0xd9]; // an APP1 segment holding an end marker
const SCAN = [0xff, 0xda, 0, 3, 0xd9, 0x12, 0xff, 0x00, 0x34, 0xff, 0xd3, 0x56];
const EOI = [0xff, 0xd9];
const JPEG = [...SOI, ...THUMBNAIL, ...SCAN, ...EOI];

/** The length JpegEnd gives `bytes` pushed in chunks of `size`, then 'more' if it never ends. */
function lengthOf(bytes: number[], size: number): number | 'more' | undefined {
  const end = new JpegEnd();
  for (let at = 0; at < bytes.length; at += size) {
    const length = end.push(Buffer.from(bytes.slice(at, at + size)));
    if (length !== 'more') return length;
  }
  return 'more';
}

describe('JpegEnd', () => {
  it('ends at the end marker after the scan, past a thumbnail, whatever the chunks', () => {
    const padded = [...JPEG, 0, 0, 0xff, 0xd9, 0];
    for (const size of [1, 2, 3, 5, 64]) expect(lengthOf(padded, size)).toBe(JPEG.length);
  });

  it('waits for more while no end marker came', () => {
    expect(lengthOf([...SOI, ...THUMBNAIL, ...SCAN], 4)).toBe('more');
  });

  it('reads no JPEG in bytes that do not start as one, or end before a scan', () => {
    expect(lengthOf([0, 0, 0, 0, 0], 2)).toBeUndefined();
    expect(lengthOf([...SOI, ...EOI, 0, 0], 8)).toBeUndefined();
    expect(lengthOf([...SOI, 0x12, 0x34, 0, 0], 8)).toBeUndefined();
  });
});
