// Each account's webhook secret (openapi.yaml, "Webhooks", Secret): the store as an async interface
// with no connection type (STYLE.md 14; sqlite-webhook-secrets.ts, pg-webhook-secrets.ts, suite
// webhook-secrets.contract.ts), and the policy above it: made on first use, and on rotation the
// previous one keeps signing for 24 hours so receivers can switch without losing events.
import { randomBytes } from 'node:crypto';

/** How long a rotated-out secret still signs (a second `v1`). */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60_000;

export interface WebhookSecretStore {
  /** The user's secrets still valid at `now`, the current (never retired) one first. */
  valid(userId: number, now: number): Promise<string[]>;
  /**
   * Makes `secret` the user's current one, atomically: a current one before it retires at
   * `retireAt`; secrets retired before `now` are dropped. `onlyIfNone`: only when the user has no
   * current secret (first use), so two first uses at once keep one.
   */
  put(userId: number, secret: string, now: number, retireAt: number, onlyIfNone: boolean): Promise<void>;
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export class WebhookSecrets {
  constructor(
    private readonly store: WebhookSecretStore,
    private readonly now: () => number,
  ) {}

  /** The secrets that sign now, the current one first (made if the user has none). */
  async signing(userId: number): Promise<string[]> {
    const now = this.now();
    const valid = await this.store.valid(userId, now);
    if (valid.length > 0) return valid;
    await this.store.put(userId, newWebhookSecret(), now, now, true);
    return this.store.valid(userId, now);
  }

  /** The current secret, as its owner is shown it. */
  async current(userId: number): Promise<string> {
    const [current] = await this.signing(userId);
    if (current === undefined) throw new Error('the webhook secret store kept no secret');
    return current;
  }

  /** A new current secret; the one before signs beside it for PREVIOUS_SECRET_MS. */
  async rotate(userId: number): Promise<string> {
    const now = this.now();
    const secret = newWebhookSecret();
    await this.store.put(userId, secret, now, now + PREVIOUS_SECRET_MS, false);
    return secret;
  }
}
