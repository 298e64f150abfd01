// API keys: created by their owner in the account area or by the admin command, shown once, stored
// as SHA-256 hashes, renamed, rolled and revoked by id. Rolling a key makes a new key of the same
// name and kind and gives the old one an expiry, the grace its owner chose to move every client to
// the new one (Stripe's "roll key"); an expired key is refused as a revoked one is. authenticate()
// runs on every /api/v1 request and reads the database each time: no cache of key validity, so a
// revocation holds on the very next request in every server process. Every backend implements
// ApiKeyStore and passes api-keys.contract.ts.
import type { KeyKind } from './key-format.js';
import type { Plan } from './plans.js';

/** Minute precision is plenty for "last used" and spares a write on most requests. */
export const LAST_USED_PRECISION_MS = 60_000;
export const KEY_NAME_MAX = 80;

export interface ApiKeyRecord {
  id: string;
  userId: number;
  /** The owner's label (users.ts userLabel). */
  owner: string;
  /** What the owner called it ("laptop", "CI"); may be empty for keys made before keys had names. */
  name: string;
  kind: KeyKind;
  prefix: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
  /** When a rolled key stops working; null for a key that works until it is revoked. */
  expiresAt: number | null;
}

/** Whether `key` still authenticates at `now`: not revoked, and not a rolled key past its grace. */
export function isActive(key: ApiKeyRecord, now: number): boolean {
  return key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now);
}

/** Who is calling: the key's owner and the key itself (its kind goes into the logs). */
export interface Principal {
  userId: number;
  owner: string;
  plan: Plan;
  keyId: string;
  keyKind: KeyKind;
}

export class InvalidKeyNameError extends Error {
  override name = 'InvalidKeyNameError';
  constructor() {
    super(`a key name has at most ${KEY_NAME_MAX} characters and no control characters`);
  }
}

/** The name as stored: trimmed, at most KEY_NAME_MAX characters, no control characters. */
export function checkKeyName(candidate: string): string {
  const name = candidate.trim();
  if (name.length > KEY_NAME_MAX || /\p{Cc}/u.test(name)) throw new InvalidKeyNameError();
  return name;
}

export interface ApiKeyStore {
  /** Creates a key and returns it in full: the only time the plain key exists. */
  create(userId: number, kind: KeyKind, name: string): Promise<{ key: string; record: ApiKeyRecord }>;
  /** All keys, or one user's, oldest first. */
  list(userId?: number): Promise<ApiKeyRecord[]>;
  /**
   * Revokes a key; false when there is no such active key, or (with `ownerId`) when it belongs to
   * someone else, so a guessed id tells nothing about other users' keys.
   */
  revoke(id: string, ownerId?: number): Promise<boolean>;
  /** Renames an active key of `ownerId`'s; false when they have no such active key. */
  rename(id: string, ownerId: number, name: string): Promise<boolean>;
  /**
   * Rolls an active, not yet rolled key of `ownerId`'s, in one step: a new key of the same kind and
   * name, returned in full (the only time), and the old one working for `graceMs` more (0: not at
   * all). Undefined when they have no such key, so a second roll of one key makes no second key.
   */
  roll(
    id: string,
    ownerId: number,
    graceMs: number,
  ): Promise<{ key: string; record: ApiKeyRecord } | undefined>;
  /** The caller behind a presented key, or undefined for a malformed, unknown, revoked or expired one. */
  authenticate(presented: string): Promise<Principal | undefined>;
}
