// One-time sign-in links: the operator prints one with `pdn-server users create` or
// `users reset-password`, the user opens it and chooses a password. No mail server is assumed. The
// token is random, stored only as its hash, good for one use within LINK_TTL_MS; opening the page does
// not spend it (link previewers fetch pages), setting the password does. Every backend implements
// SignInLinkStore and passes sign-in-links.contract.ts.
import { createHash, randomBytes } from 'node:crypto';

export const LINK_TTL_MS = 24 * 60 * 60 * 1000;

export interface SignInLinkStore {
  insert(tokenHash: string, userId: number, expiresAt: number): Promise<void>;
  /** The user of an unexpired link, without spending it. */
  peek(tokenHash: string, now: number): Promise<number | undefined>;
  /** Spends the link: the user, exactly once, while unexpired. */
  redeem(tokenHash: string, now: number): Promise<number | undefined>;
  /** Spends every link of a user (a new one replaces older ones). */
  deleteForUser(userId: number): Promise<void>;
  /** Drops links that expired at or before `now`. */
  deleteExpired(now: number): Promise<void>;
}

function hashOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export class SignInLinks {
  constructor(
    private readonly store: SignInLinkStore,
    private readonly now: () => number,
  ) {}

  /** A fresh token for the user's link; earlier links stop working. */
  async issue(userId: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.store.deleteForUser(userId);
    await this.store.deleteExpired(this.now());
    await this.store.insert(hashOf(token), userId, this.now() + LINK_TTL_MS);
    return token;
  }

  peek(token: string): Promise<number | undefined> {
    return this.store.peek(hashOf(token), this.now());
  }

  redeem(token: string): Promise<number | undefined> {
    return this.store.redeem(hashOf(token), this.now());
  }
}
