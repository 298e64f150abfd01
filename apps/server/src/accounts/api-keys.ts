// API keys (issue #2, #12): created by their owner in the account area or by the admin command, shown
// once, stored as SHA-256 hashes, revoked by id. authenticate() runs on every /api/v1 request and reads
// the database each time: no cache of key validity, so a revocation holds on the very next request in
// every server process. Every backend implements ApiKeyStore and passes api-keys.contract.ts.
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
  /** What the owner called it ("laptop", "CI"); may be empty for keys made before issue #12. */
  name: string;
  kind: KeyKind;
  prefix: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
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
  /** The caller behind a presented key, or undefined for a malformed, unknown or revoked one. */
  authenticate(presented: string): Promise<Principal | undefined>;
}
