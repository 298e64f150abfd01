// Throttling of sign-in and sign-up attempts. Failed sign-ins are counted per account and per client
// address (an IPv6 client by its /64, client-address.ts), sign-ups per address, each in a sliding
// window; past a limit the form answers "too many attempts, try again in N minutes" without checking
// the password, for a known account and an unknown email alike.
//
// An attempt is reserved BEFORE its password is hashed, in one atomic step of the store (count and
// record together, as the rate limiter's admit does): checking the buckets, hashing and only then
// recording let every attempt in flight pass, so 60 wrong passwords sent at once were all checked.
// Reserved, an attempt counts as a failure until the password proves right, which forgives it.
//
// The account's owner keeps a way in while others guess: an address the account signed in from in
// the last 90 days is "known", and attempts from it count in a bucket of their own for that account
// and address (plus the address's own bucket) instead of the account's, so failures from other
// addresses never lock it out. The policy is here; each backend supplies AttemptStore and
// KnownAddressStore and passes throttle.contract.ts.

export interface BucketWindow {
  bucket: string;
  limit: number;
  /** Attempts at or before this are out of the window. */
  since: number;
}

export interface BucketCount {
  count: number;
  /** When the oldest attempt in the window was; null when there is none. */
  oldest: number | null;
}

export interface AttemptStore {
  /**
   * In one atomic step (no other reserve, from any process, runs between its reads and its writes):
   * drops each bucket's attempts at or before its `since`, counts the rest and, when every bucket is
   * below its limit, records one attempt at `at` in each. Returns the counts before the insert.
   */
  reserve(
    buckets: readonly BucketWindow[],
    at: number,
  ): Promise<{ reserved: boolean; counts: BucketCount[] }>;
  /** Forgets one attempt at `at` in each bucket, the one reserve() recorded; nothing if it is gone. */
  release(buckets: readonly string[], at: number): Promise<void>;
  /** Attempts in `bucket` after `since`, and when the oldest of them was. */
  count(bucket: string, since: number): Promise<BucketCount>;
  clear(bucket: string): Promise<void>;
  /** Drops every attempt at or before `before`, in every bucket. */
  forget(before: number): Promise<void>;
}

/** Addresses (client-address.ts keys) each user signed in from, and when last. */
export interface KnownAddressStore {
  remember(userId: number, address: string, at: number): Promise<void>;
  /** Whether `userId` signed in from `address` after `since`. */
  knows(userId: number, address: string, since: number): Promise<boolean>;
  /** Drops every address last used at or before `before`. */
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
  /** The same, for one account from one of its known addresses: `<user id>@<address>`. */
  signInKnownAddress: { name: 'sign-in-known', limit: 5, windowMs: 15 * MINUTE },
  /** One address guessing across many accounts, or asking sign-up which emails have one. */
  signInAddress: { name: 'sign-in-address', limit: 20, windowMs: 15 * MINUTE },
  signUpAddress: { name: 'sign-up-address', limit: 5, windowMs: 60 * MINUTE },
  /** `pdn login` codes asked for by one address (device-logins.ts). */
  deviceStartAddress: { name: 'device-start-address', limit: 30, windowMs: 15 * MINUTE },
  /** Unknown `pdn login` user codes entered from one address, and by one account. */
  deviceCodeAddress: { name: 'device-code-address', limit: 10, windowMs: 15 * MINUTE },
  deviceCodeUser: { name: 'device-code-user', limit: 10, windowMs: 15 * MINUTE },
  /**
   * Tries of one user code, matched or not, from anywhere: its owner opens it and approves (two), so
   * a code leaked in part or whole cannot be worked on from many addresses and accounts at once.
   */
  deviceCodeTries: { name: 'device-code-tries', limit: 5, windowMs: 15 * MINUTE },
} as const satisfies Record<string, ThrottleRule>;

/** The rules of deviceCodeAttempts() that count only codes matching nothing. */
export const MISSED_CODE_RULES: readonly ThrottleRule[] = [RULES.deviceCodeAddress, RULES.deviceCodeUser];

/** How long after a successful sign-in its address stays known to the account. */
export const KNOWN_ADDRESS_MS = 90 * 24 * 60 * MINUTE;

const LONGEST_WINDOW_MS = Math.max(...Object.values(RULES).map((rule) => rule.windowMs));

export type Attempt = readonly [rule: ThrottleRule, key: string];

/** Attempts recorded by one reserve(), to forgive if the password proves right. */
export interface Reservation {
  readonly at: number;
  readonly attempts: readonly Attempt[];
}

export type ThrottleDecision =
  | { reserved: true; reservation: Reservation }
  | { reserved: false /** Seconds until every full bucket has room again. */; waitSeconds: number };

const bucketOf = ([rule, key]: Attempt) => `${rule.name}:${key}`;

export class Throttle {
  constructor(
    private readonly attempts: AttemptStore,
    private readonly known: KnownAddressStore,
    private readonly now: () => number,
  ) {}

  /**
   * The buckets a sign-in for `email` from `address` counts in: the account's and the address's, or,
   * from an address the account signed in from before, that pair's own and the address's.
   */
  async signInAttempts(email: string, userId: number | undefined, address: string): Promise<Attempt[]> {
    const byAddress: Attempt = [RULES.signInAddress, address];
    if (userId !== undefined && (await this.known.knows(userId, address, this.now() - KNOWN_ADDRESS_MS)))
      return [[RULES.signInKnownAddress, `${userId}@${address}`], byAddress];
    return [[RULES.signInAccount, email.trim().toLowerCase()], byAddress];
  }

  /**
   * The buckets an entry of a `pdn login` user code counts in: the address's and the account's, which
   * a code that proves real forgives (MISSED_CODE_RULES), and the code's own, which it does not.
   */
  deviceCodeAttempts(codeKey: string, userId: number, address: string): Attempt[] {
    return [
      [RULES.deviceCodeAddress, address],
      [RULES.deviceCodeUser, String(userId)],
      [RULES.deviceCodeTries, codeKey],
    ];
  }

  /** Records the attempt in every bucket when all have room, in one step; else says how long to wait. */
  async reserve(attempts: readonly Attempt[]): Promise<ThrottleDecision> {
    const now = this.now();
    const windows = attempts.map(([rule, key]) => ({
      bucket: bucketOf([rule, key]),
      limit: rule.limit,
      since: now - rule.windowMs,
    }));
    const { reserved, counts } = await this.attempts.reserve(windows, now);
    // Buckets of emails tried once are never counted again; nothing older than the longest window counts.
    await this.attempts.forget(now - LONGEST_WINDOW_MS);
    if (reserved) return { reserved: true, reservation: { at: now, attempts } };
    let wait = 1;
    for (const [index, [rule]] of attempts.entries()) {
      const { count, oldest } = counts[index] ?? { count: 0, oldest: null };
      if (count >= rule.limit && oldest !== null)
        wait = Math.max(wait, Math.ceil((oldest + rule.windowMs - now) / 1000));
    }
    return { reserved: false, waitSeconds: wait };
  }

  /**
   * Gives back what `reservation` recorded, in every bucket or in those of `rules`: for an attempt
   * whose password proved right, or that was never checked (the server too busy to hash it).
   */
  release(reservation: Reservation, rules?: readonly ThrottleRule[]): Promise<void> {
    const attempts = reservation.attempts.filter(([rule]) => rules === undefined || rules.includes(rule));
    return this.attempts.release(attempts.map(bucketOf), reservation.at);
  }

  /**
   * A right password: the attempt is forgiven, and so are the failures of this account at this
   * address (the owner's own typos); the address becomes known to the account. Failures from other
   * addresses stay counted.
   */
  async signedIn(reservation: Reservation, userId: number, address: string): Promise<void> {
    await this.release(reservation);
    await this.attempts.clear(bucketOf([RULES.signInKnownAddress, `${userId}@${address}`]));
    await this.rememberAddress(userId, address);
  }

  /** Makes `address` known to `userId` (a sign-in, a sign-up or a password set from it). */
  async rememberAddress(userId: number, address: string): Promise<void> {
    const now = this.now();
    await this.known.remember(userId, address, now);
    await this.known.forget(now - KNOWN_ADDRESS_MS);
  }
}
