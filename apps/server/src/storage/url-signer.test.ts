import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newOutputId } from './output-id.js';
import { UrlSigner } from './url-signer.js';

const secret = 'k'.repeat(64);
const signer = new UrlSigner(secret);
const file = newOutputId();
const exp = 1_767_225_600;
const sig = signer.sign(file, exp);

describe('UrlSigner.sign', () => {
  it('is hex HMAC-SHA256 over the documented payload', () => {
    const want = createHmac('sha256', secret).update(`pdn-download-v1\n${file}\n${exp}`).digest('hex');
    expect(sig).toBe(want);
  });
});

describe('UrlSigner.verify', () => {
  const table: [string, { given: Record<string, unknown>; ok: boolean }][] = [
    ['a URL it signed', { given: { file, exp: String(exp), sig }, ok: true }],
    ['another file', { given: { file: newOutputId(), exp: String(exp), sig }, ok: false }],
    ['a later exp', { given: { file, exp: String(exp + 1), sig }, ok: false }],
    ['exp with a leading zero', { given: { file, exp: `0${exp}`, sig }, ok: false }],
    ['exp as an empty string (Number("") is 0)', { given: { file, exp: '', sig }, ok: false }],
    ['exp in exponent notation', { given: { file, exp: '1.7e9', sig }, ok: false }],
    ['exp negative', { given: { file, exp: `-${exp}`, sig }, ok: false }],
    [
      'a signature by another secret',
      { given: { file, exp: String(exp), sig: new UrlSigner('x'.repeat(64)).sign(file, exp) }, ok: false },
    ],
    ['an uppercase signature', { given: { file, exp: String(exp), sig: sig.toUpperCase() }, ok: false }],
    [
      'a non-hex signature (abcg)',
      { given: { file, exp: String(exp), sig: `${sig.slice(0, 60)}abcg` }, ok: false },
    ],
    ['a short signature', { given: { file, exp: String(exp), sig: sig.slice(0, 62) }, ok: false }],
    ['a long signature', { given: { file, exp: String(exp), sig: `${sig}00` }, ok: false }],
    ['an odd-length signature', { given: { file, exp: String(exp), sig: sig.slice(1) }, ok: false }],
    ['an empty signature', { given: { file, exp: String(exp), sig: '' }, ok: false }],
    ['file given twice (an array)', { given: { file: [file, file], exp: String(exp), sig }, ok: false }],
    ['sig given twice (an array)', { given: { file, exp: String(exp), sig: [sig, sig] }, ok: false }],
    ['exp given twice (an array)', { given: { file, exp: [String(exp)], sig }, ok: false }],
    [
      'a path traversal in file (..%2F decoded)',
      { given: { file: '../../pdn.sqlite', exp: String(exp), sig }, ok: false },
    ],
    [
      'a NUL byte in file (%00 decoded)',
      { given: { file: `${file.slice(0, 23)}\0`, exp: String(exp), sig }, ok: false },
    ],
    ['file missing', { given: { exp: String(exp), sig }, ok: false }],
    ['exp missing', { given: { file, sig }, ok: false }],
    ['sig missing', { given: { file, exp: String(exp) }, ok: false }],
    ['nothing at all', { given: {}, ok: false }],
    [
      'an object where a string belongs',
      { given: { file: { toString: () => file }, exp: String(exp), sig }, ok: false },
    ],
  ];

  it.each(table)('%s', (_name, { given, ok }) => {
    const result = signer.verify(given);
    expect(result.ok).toBe(ok);
    if (result.ok) expect(result).toEqual({ ok: true, file, exp });
  });

  it('accepts a traversal only if it was signed, and then only as an id that names no path', () => {
    // The signer would happily sign anything, but verify rejects every id outside the id alphabet.
    const evil = '../../../../etc/passwd';
    expect(signer.verify({ file: evil, exp: String(exp), sig: signer.sign(evil, exp) }).ok).toBe(false);
  });
});
