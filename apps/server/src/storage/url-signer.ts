// Signed download URLs: `sig` is hex HMAC-SHA256, keyed with the signing secret, over
//   "pdn-download-v1\n" + file + "\n" + exp
// i.e. over every parameter that decides what is served and until when; the version tag keeps this
// signature from ever being valid for another purpose. verify() is total: whatever a query string
// holds (arrays from `file=a&file=b`, empty `exp`, non-hex or short `sig`) it answers, never throws.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { OUTPUT_ID_PATTERN } from './output-id.js';

export type Verification = { ok: true; file: string; exp: number } | { ok: false; reason: string };

const EXP_PATTERN = /^[1-9][0-9]{0,11}$/;
const SIG_PATTERN = /^[0-9a-f]{64}$/;

/** A query parameter that occurs exactly once; Koa gives an array for `file=a&file=b`. */
function single(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export class UrlSigner {
  constructor(private readonly secret: string) {}

  sign(file: string, exp: number): string {
    return createHmac('sha256', this.secret).update(`pdn-download-v1\n${file}\n${exp}`).digest('hex');
  }

  verify(query: Readonly<Record<string, unknown>>): Verification {
    const file = single(query.file);
    const exp = single(query.exp);
    const sig = single(query.sig);
    if (file === undefined || exp === undefined || sig === undefined) {
      return { ok: false, reason: 'file, exp and sig must each be given exactly once' };
    }
    // Shapes before crypto: Number('') is 0 and Buffer.from('abcg', 'hex') silently truncates, so
    // only exact shapes go further, and equal-length buffers keep timingSafeEqual from throwing.
    if (!OUTPUT_ID_PATTERN.test(file) || !EXP_PATTERN.test(exp) || !SIG_PATTERN.test(sig)) {
      return { ok: false, reason: 'malformed download parameters' };
    }
    const expected = Buffer.from(this.sign(file, Number(exp)), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(sig, 'hex'))) {
      return { ok: false, reason: 'signature does not match' };
    }
    return { ok: true, file, exp: Number(exp) };
  }
}
