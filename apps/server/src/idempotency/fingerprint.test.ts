import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type FingerprintInput, fingerprint } from './fingerprint.js';

const file = (name: string, bytes: string) => ({
  name,
  sha256: createHash('sha256').update(bytes).digest('hex'),
});

const base: FingerprintInput = {
  operation: 'split',
  async: false,
  fields: new Map([['ranges', ['1-2']]]),
  files: new Map([['file', [file('a.pdf', 'AAA')]]]),
};

describe('fingerprint', () => {
  it('is the same for the same request, fields in any order', () => {
    const again: FingerprintInput = {
      ...base,
      fields: new Map([
        ['z', ['1']],
        ['ranges', ['1-2']],
      ]),
    };
    const first: FingerprintInput = {
      ...base,
      fields: new Map([
        ['ranges', ['1-2']],
        ['z', ['1']],
      ]),
    };
    expect(fingerprint(again)).toBe(fingerprint(first));
    expect(fingerprint({ ...base, files: new Map([['file', [file('a.pdf', 'AAA')]]]) })).toBe(
      fingerprint(base),
    );
  });

  it('is what it was when files were hashed from disk: keys stored before still match', () => {
    expect(fingerprint(base)).toBe('1e8d068a8092a81ce6f9a99b6e3b39cc64c486b2d3bae2ca516b3323ec6dd183');
  });

  it.each<[string, Partial<FingerprintInput>]>([
    ['another operation', { operation: 'compress' }],
    ['asking for a job', { async: true }],
    ['another field value', { fields: new Map([['ranges', ['1-3']]]) }],
    ['a field sent twice', { fields: new Map([['ranges', ['1-2', '1-2']]]) }],
    [
      'a field split differently',
      {
        fields: new Map([
          ['ranges', ['1-2']],
          ['x', []],
        ]),
      },
    ],
    ['other file bytes', { files: new Map([['file', [file('a.pdf', 'AAB')]]]) }],
    ['another file name', { files: new Map([['file', [file('b.pdf', 'AAA')]]]) }],
    ['another part', { files: new Map([['image', [file('a.pdf', 'AAA')]]]) }],
  ])('differs for %s', async (_, change) => {
    expect(fingerprint({ ...base, ...change })).not.toBe(fingerprint(base));
  });
});
