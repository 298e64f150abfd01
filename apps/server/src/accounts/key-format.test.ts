import { describe, expect, it } from 'vitest';
import { displayPrefix, generateKey, hashKey, parseKeyKind } from './key-format.js';

const hex32 = '0123456789abcdef0123456789abcdef';

describe('parseKeyKind', () => {
  const table: [string, { given: string; want: 'live' | 'test' | undefined }][] = [
    ['a live key', { given: `pdn_live_${hex32}`, want: 'live' }],
    ['a test key', { given: `pdn_test_${hex32}`, want: 'test' }],
    ['uppercase hex', { given: `pdn_live_${hex32.toUpperCase()}`, want: undefined }],
    ['31 hex digits', { given: `pdn_live_${hex32.slice(1)}`, want: undefined }],
    ['33 hex digits', { given: `pdn_live_${hex32}0`, want: undefined }],
    ['a non-hex digit', { given: `pdn_live_${hex32.slice(1)}g`, want: undefined }],
    ['an unknown kind', { given: `pdn_prod_${hex32}`, want: undefined }],
    ['no prefix', { given: hex32, want: undefined }],
    ['surrounding space', { given: ` pdn_live_${hex32}`, want: undefined }],
    ['a trailing newline', { given: `pdn_live_${hex32}\n`, want: undefined }],
    ['empty', { given: '', want: undefined }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    expect(parseKeyKind(given)).toBe(want);
  });
});

describe('generateKey', () => {
  it.each(['live', 'test'] as const)('makes well-formed, distinct %s keys', (kind) => {
    const first = generateKey(kind);
    expect(parseKeyKind(first)).toBe(kind);
    expect(generateKey(kind)).not.toBe(first);
  });
});

describe('hashKey and displayPrefix', () => {
  it('hashes to 64 hex digits and shows only the start of the key', () => {
    const key = `pdn_test_${hex32}`;
    expect(hashKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(key)).not.toBe(hashKey(`pdn_live_${hex32}`));
    expect(displayPrefix(key)).toBe('pdn_test_0123…');
  });
});
