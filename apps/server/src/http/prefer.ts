// The `Prefer` request header (RFC 7240): does the client ask for `respond-async`? Preferences are
// comma-separated, each a token optionally followed by `=value` and `;` parameters; tokens are
// case-insensitive (section 2). Others (`wait=`, `return=`) are ignored, as the RFC allows.
import type { AppContext } from './state.js';

export function prefersAsync(header: string): boolean {
  return header
    .split(',')
    .some((preference) => preference.split(/[;=]/, 1)[0]?.trim().toLowerCase() === 'respond-async');
}

export function asksForJob(ctx: AppContext): boolean {
  return prefersAsync(ctx.get('Prefer'));
}
