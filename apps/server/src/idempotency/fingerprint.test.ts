import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FingerprintInput, fingerprint } from './fingerprint.js';

const dir = mkdtempSync(join(tmpdir(), 'pdn-fingerprint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, bytes: string) => {
  const path = join(dir, `${name}-${bytes}`);
  writeFileSync(path, bytes);
  return { path, name };
};

const base: FingerprintInput = {
  operation: 'split',
  async: false,
  fields: new Map([['ranges', ['1-2']]]),
  files: new Map([['file', [file('a.pdf', 'AAA')]]]),
};

describe('fingerprint', () => {
  it('is the same for the same request, fields in any order', async () => {
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
    expect(await fingerprint(again)).toBe(await fingerprint(first));
    expect(await fingerprint({ ...base, files: new Map([['file', [file('a.pdf', 'AAA')]]]) })).toBe(
      await fingerprint(base),
    );
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
    expect(await fingerprint({ ...base, ...change })).not.toBe(await fingerprint(base));
  });
});
