// Sign-in sessions of the account area, kept server-side in the accounts database so
// sign-out and expiry hold in every process. The browser holds only a random id; the store keeps its
// SHA-256, so a leaked database opens no session. A session ends after PDN_SESSION_IDLE_MINUTES
// without a request or PDN_SESSION_MAX_HOURS after sign-in, whichever comes first. Each session has
// its own CSRF token for the forms it shows. Every backend implements SessionStore and passes
// sessions.contract.ts.
import { createHash, randomBytes } from 'node:crypto';

export interface SessionRecord {
  userId: number;
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
}

export interface SessionStore {
  insert(idHash: string, record: SessionRecord): Promise<void>;
  find(idHash: string): Promise<SessionRecord | undefined>;
  touch(idHash: string, at: number): Promise<void>;
  delete(idHash: string): Promise<void>;
  /** Ends every session of a user (a password reset signs out everywhere). */
  deleteForUser(userId: number): Promise<void>;
  /** Drops sessions last seen at or before `seenBefore` or created at or before `createdBefore`. */
  deleteExpired(seenBefore: number, createdBefore: number): Promise<void>;
}

export interface SessionLimits {
  idleMs: number;
  maxMs: number;
}

export interface Session {
  userId: number;
  csrfToken: string;
}

/** Refreshing "last seen" on every page is a write per page; a minute's precision is plenty. */
const TOUCH_PRECISION_MS = 60_000;

function hashOf(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

export class Sessions {
  constructor(
    private readonly store: SessionStore,
    private readonly now: () => number,
    private readonly limits: SessionLimits,
  ) {}

  /** A new session with a fresh id, never one the browser had before (no session fixation). */
  async start(userId: number): Promise<Session & { id: string }> {
    const id = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(32).toString('base64url');
    const now = this.now();
    // Sessions nobody resumes again are never met by resume(); each sign-in clears them away.
    await this.store.deleteExpired(now - this.limits.idleMs, now - this.limits.maxMs);
    await this.store.insert(hashOf(id), { userId, csrfToken, createdAt: now, lastSeenAt: now });
    return { id, userId, csrfToken };
  }

  /** The live session behind `id`, or undefined (an expired one is deleted on the way). */
  async resume(id: string): Promise<Session | undefined> {
    const idHash = hashOf(id);
    const record = await this.store.find(idHash);
    if (record === undefined) return undefined;
    const now = this.now();
    if (now - record.lastSeenAt >= this.limits.idleMs || now - record.createdAt >= this.limits.maxMs) {
      await this.store.delete(idHash);
      return undefined;
    }
    if (now - record.lastSeenAt >= TOUCH_PRECISION_MS) await this.store.touch(idHash, now);
    return { userId: record.userId, csrfToken: record.csrfToken };
  }

  end(id: string): Promise<void> {
    return this.store.delete(hashOf(id));
  }

  endAllFor(userId: number): Promise<void> {
    return this.store.deleteForUser(userId);
  }
}
