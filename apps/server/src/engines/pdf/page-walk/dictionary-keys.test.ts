import { describe, expect, it } from 'vitest';
import { OpenDictionaryKeys } from './dictionary-keys.js';

/** Adds `keys` to a new dictionary, answering the first one refused. */
function firstRepeat(open: OpenDictionaryKeys, keys: string[]): string | undefined {
  const mark = open.open();
  try {
    return keys.find((key) => !open.add(mark, key));
  } finally {
    open.close(mark);
  }
}

const many = (count: number) => Array.from({ length: count }, (_, i) => `K${i}`);

describe('OpenDictionaryKeys', () => {
  it.each<[string, { given: string[]; want: string | undefined }]>([
    ['distinct keys', { given: ['Type', 'Kids', 'Count'], want: undefined }],
    ['a repeated key', { given: ['Type', 'Kids', 'Type'], want: 'Type' }],
    ['distinct keys past the scan', { given: many(100), want: undefined }],
    ['a key repeated long after', { given: [...many(100), 'K3'], want: 'K3' }],
    ['a key repeated as the scan ends', { given: [...many(16), 'K0'], want: 'K0' }],
  ])('%s', (_, { given, want }) => {
    expect(firstRepeat(new OpenDictionaryKeys(), given)).toBe(want);
  });

  it("keeps a nested dictionary's keys apart from those of the dictionary holding it", () => {
    for (const outerCount of [2, 40]) {
      const open = new OpenDictionaryKeys();
      const outer = open.open();
      for (const key of many(outerCount)) expect(open.add(outer, key)).toBe(true);
      // The nested dictionary may use its holder's keys, and adds none to it.
      expect(firstRepeat(open, ['K0', 'K1', 'Inner'])).toBeUndefined();
      expect(open.add(outer, 'Inner')).toBe(true);
      expect(open.add(outer, 'K1')).toBe(false);
      open.close(outer);
    }
  });

  it('starts each dictionary empty once the previous one is closed', () => {
    const open = new OpenDictionaryKeys();
    expect(firstRepeat(open, many(40))).toBeUndefined();
    expect(firstRepeat(open, many(40))).toBeUndefined();
    expect(firstRepeat(open, ['K0'])).toBeUndefined();
  });
});
