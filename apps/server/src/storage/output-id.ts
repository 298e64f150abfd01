// Output ids: 18 random bytes as base64url (24 characters). Opaque and unguessable, and, because
// the pattern admits no '.', '/', '%' or NUL, an id checked against it can never name a path outside
// the outputs folder (issue #2: `..%2F` and `%00` traps).
import { randomBytes } from 'node:crypto';

export const OUTPUT_ID_PATTERN = /^[A-Za-z0-9_-]{24}$/;

export function newOutputId(): string {
  return randomBytes(18).toString('base64url');
}
