// Throttling of sign-in and sign-up attempts (issue #12). Failed sign-ins are counted per account and
// per client address, sign-ups per address, each in a sliding window; past the limit the form answers
// "too many attempts, try again in N minutes" without checking the password, for a known account and
// an unknown email alike. The policy is here; each backend supplies AttemptStore and passes
// throttle.contract.ts.

export interface AttemptStore {
  record(bucket: string, at: number): Promise<void>;
  /** Attempts in `bucket` after `since`, and when the oldest of them was; older ones may be dropped. */
  count(bucket: string, since: number): Promise<{ count: number; oldest: number | null }>;
  clear(bucket: string): Promise<void>;
  /** Drops every attempt at or before `before`, in every bucket. */
  forget(before: number): Promise<void>;
}

export interface ThrottleRule {
  /** Namespaces the bucket: `sign-in-account:ada@example.com`. */
  name: string;
  limit: number;
  windowMs: number;
}

const MINUTE = 60_000;

export const RULES = {
  /** Five wrong passwords in 15 minutes lock the account's form for the rest of the window. */
  signInAccount: { name: 'sign-in-account', limit: 5, windowMs: 15 * MINUTE },
  /** One address guessing across many accounts. */
  signInAddress: { name: 'sign-in-address', limit: 20, windowMs: 15 * MINUTE },
  signUpAddress: { name: 'sign-up-address', limit: 5, windowMs: 60 * MINUTE },
} as const satisfies Record<string, ThrottleRule>;

const LONGEST_WINDOW_MS = Math.max(...Object.values(RULES).map((rule) => rule.windowMs));

export type Attempt = readonly [rule: ThrottleRule, key: string];

export class Throttle {
  constructor(
    private readonly store: AttemptStore,
    private readonly now: () => number,
  ) {}

  /** Seconds until every attempt's bucket has room again; 0 when all have room now. */
  async waitSeconds(attempts: readonly Attempt[]): Promise<number> {
    const now = this.now();
    let wait = 0;
    for (const [rule, key] of attempts) {
      const { count, oldest } = await this.store.count(`${rule.name}:${key}`, now - rule.windowMs);
      if (count >= rule.limit && oldest !== null)
        wait = Math.max(wait, Math.ceil((oldest + rule.windowMs - now) / 1000));
    }
    return wait;
  }

  async record(attempts: readonly Attempt[]): Promise<void> {
    const now = this.now();
    for (const [rule, key] of attempts) await this.store.record(`${rule.name}:${key}`, now);
    // Buckets of emails tried once are never counted again; nothing older than the longest window counts.
    await this.store.forget(now - LONGEST_WINDOW_MS);
  }

  /** A successful sign-in forgives the account's earlier failures (not the address's). */
  clear(rule: ThrottleRule, key: string): Promise<void> {
    return this.store.clear(`${rule.name}:${key}`);
  }
}
