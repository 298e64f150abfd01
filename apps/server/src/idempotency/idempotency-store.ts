// Where Idempotency-Key records are kept (openapi.yaml, "Idempotency"; STYLE.md 14): an async interface
// that exposes no connection type. sqlite-idempotency-store.ts and pg-idempotency-store.ts implement it
// and pass the same suite (idempotency-store.contract.ts). The policy above it (what a
// duplicate is answered, how long it waits) is http/middleware/idempotency.ts's.

export interface IdempotencyRecord {
  userId: number;
  key: string;
  /** Which request holds the key: a claim's own token, so a late release cannot free a newer claim. */
  token: string;
  /** Hash of the first request (operation, mode, fields, files); null until its body was read. */
  fingerprint: string | null;
  /** The first request's job; null until it was submitted. */
  jobId: string | null;
  /** Unix milliseconds. */
  createdAt: number;
}

export type Claim =
  /** The key was free (never used, expired or released): this request is the first. */
  | { first: true; token: string }
  /** Another request holds it, as recorded. */
  | { first: false; record: IdempotencyRecord };

export interface IdempotencyStore {
  /**
   * Atomically takes (userId, key) for a new request with `token`, unless a record created after
   * `since` holds it; an older record is replaced.
   */
  claim(userId: number, key: string, token: string, now: number, since: number): Promise<Claim>;
  /** Records the first request's fingerprint and job, if `token` still holds the key. */
  bind(userId: number, key: string, token: string, fingerprint: string, jobId: string): Promise<void>;
  /** Frees the key, if `token` still holds it. */
  release(userId: number, key: string, token: string): Promise<void>;
  /** Forgets records created at or before `before`. */
  forget(before: number): Promise<void>;
}
