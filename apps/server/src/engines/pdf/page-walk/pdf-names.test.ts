import { describe, expect, it } from 'vitest';
import { plainName } from './pdf-names.js';

function nameIn(text: string): string | undefined {
  const bytes = Buffer.from(`<</${text} `, 'latin1');
  return plainName(bytes, 3, bytes.length - 1)?.value;
}

describe('plainName', () => {
  it.each([
    ['a common key', { given: 'Type', want: 'Type' }],
    [
      'a long name, not interned',
      {
        given: 'Helvetica-Bold-7098480789-with-a-long-tag',
        want: 'Helvetica-Bold-7098480789-with-a-long-tag',
      },
    ],
    ['bytes above ASCII', { given: 'Caf\xe9', want: 'Caf\xe9' }],
    ['an escape, left to the caller', { given: 'A#20B', want: undefined }],
  ])('%s', (_, { given, want }) => {
    expect(nameIn(given)).toBe(want);
    // Asked again, it is taken from the table, with the same bytes.
    expect(nameIn(given)).toBe(want);
  });

  it('gives each of many distinct names its own bytes, past the size of the table', () => {
    for (let i = 0; i < 10_000; i++) expect(nameIn(`N${i}`)).toBe(`N${i}`);
    expect(nameIn('Type')).toBe('Type');
  });
});
