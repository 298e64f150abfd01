// Output ids: 18 random bytes as base64url (24 characters). Opaque and unguessable, and, because
// the pattern admits no '.', '/', '%' or NUL, an id checked against it can never name a path outside
// the outputs folder (`..%2F` and `%00` traps).
import { createHash, randomBytes } from 'node:crypto';

export const OUTPUT_ID_PATTERN = /^[A-Za-z0-9_-]{24}$/;

export function newOutputId(): string {
  return randomBytes(18).toString('base64url');
}

/**
 * The id of a job's `index`-th output: derived, not drawn, so a job run again after a restart writes
 * over its first attempt's outputs instead of leaving them beside (STYLE.md 17). The job id is
 * unguessable, and so is its hash.
 */
export function outputIdFor(jobId: string, index: number): string {
  return createHash('sha256').update(`${jobId}:${index}`).digest('base64url').slice(0, 24);
}
