// API key syntax (v1 specification, Authentication): `pdn_live_` or `pdn_test_` followed by exactly
// 32 lowercase hex digits. Anything else is rejected here, before the database is consulted,
// so garbage never costs a lookup.
import { createHash, randomBytes } from 'node:crypto';

export type KeyKind = 'live' | 'test';

const KEY_PATTERN = /^pdn_(live|test)_[0-9a-f]{32}$/;

/** The key's kind when `candidate` is well formed, otherwise undefined. */
export function parseKeyKind(candidate: string): KeyKind | undefined {
  const match = KEY_PATTERN.exec(candidate);
  return match?.[1] === 'live' || match?.[1] === 'test' ? match[1] : undefined;
}

export function generateKey(kind: KeyKind): string {
  return `pdn_${kind}_${randomBytes(16).toString('hex')}`;
}

/** Keys are stored only as this hash: a leaked database does not leak usable keys. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Enough of the key for a person to recognise it in `keys list` (`pdn_test_3fa9…`), too little to use. */
export function displayPrefix(key: string): string {
  return `${key.slice(0, 'pdn_live_'.length + 4)}…`;
}
