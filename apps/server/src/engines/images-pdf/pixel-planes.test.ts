import { describe, expect, it } from 'vitest';
import { asBilevel, toPlanes } from './pixel-planes.js';

const rgba = (...pixels: number[][]) => Buffer.from(pixels.flat());

describe('toPlanes', () => {
  it.each([
    [
      'grey pixels as one channel, opaque alpha dropped',
      rgba([9, 9, 9, 255], [200, 200, 200, 255]),
      true,
      { colours: 1, colour: [9, 200], alpha: undefined },
    ],
    [
      'colour pixels as three channels, alpha kept where some pixel is see-through',
      rgba([1, 2, 3, 255], [4, 5, 6, 0]),
      true,
      { colours: 3, colour: [1, 2, 3, 4, 5, 6], alpha: [255, 0] },
    ],
    [
      'grey pixels as three channels when an RGB profile comes with them',
      rgba([9, 9, 9, 255], [200, 200, 200, 255]),
      false,
      { colours: 3, colour: [9, 9, 9, 200, 200, 200], alpha: undefined },
    ],
  ])('keeps %s', (_, data, mayBeGrey, want) => {
    const planes = toPlanes(data, 2, 1, 4, 8, mayBeGrey);
    expect({
      colours: planes.colours,
      colour: [...planes.colour],
      alpha: planes.alpha === undefined ? undefined : [...planes.alpha],
    }).toEqual(want);
  });

  it('keeps 16-bit samples as 16', () => {
    const data = Buffer.alloc(2 * 3 * 2);
    [1000, 1000, 1000, 65535, 65535, 65535].forEach((value, i) => {
      data.writeUInt16LE(value, i * 2);
    });
    const planes = toPlanes(data, 2, 1, 3, 16);
    expect(planes.colours).toBe(1);
    expect([planes.colour.readUInt16LE(0), planes.colour.readUInt16LE(2)]).toEqual([1000, 65535]);
  });
});

describe('asBilevel', () => {
  it('packs black and white a bit a pixel, rows padded to a byte', () => {
    // Two rows of 9 pixels: white, then black, ...
    const plane = Buffer.from([255, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect([...(asBilevel(plane, 9, 2) ?? [])]).toEqual([0x80, 0x80, 0x00, 0x00]);
  });

  it('leaves a plane with any grey in it alone', () => {
    expect(asBilevel(Buffer.from([0, 128, 255]), 3, 1)).toBeUndefined();
  });
});
