// The `Prefer` request header (RFC 7240): `respond-async` on the operations asks for a job, `wait=N`
// on GET /api/v1/jobs/{id} for an answer held until the job ends (section 4.3). Preferences are
// comma-separated, each a token optionally followed by `=value` and `;` parameters; tokens are
// case-insensitive (section 2). Others (`return=`, ...) are ignored, as the RFC allows.
import type { AppContext } from './state.js';

/** Each preference's token, lower-cased, and its value as sent. */
function preferences(header: string): { token: string; value: string | undefined }[] {
  return header.split(',').map((preference) => {
    const [pair = ''] = preference.split(';', 1);
    const [token = '', value] = pair.split('=', 2).map((part) => part.trim());
    return { token: token.toLowerCase(), value };
  });
}

export function prefersAsync(header: string): boolean {
  return preferences(header).some(({ token }) => token === 'respond-async');
}

/** `wait=N` in whole seconds, at most `max`; undefined when absent or not a number of seconds. */
export function preferredWait(header: string, max: number): number | undefined {
  const value = preferences(header).find(({ token }) => token === 'wait')?.value;
  if (value === undefined || !/^[0-9]{1,9}$/.test(value)) return undefined;
  return Math.min(Number(value), max);
}

export function asksForJob(ctx: AppContext): boolean {
  return prefersAsync(ctx.get('Prefer'));
}
