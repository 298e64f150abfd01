// Signing the CLI in from a browser (`pdn login`), shaped as OAuth 2.0's device authorization grant
// (RFC 8628): the CLI asks for a device code and a short user code, shows the user code and where to
// enter it, and polls; the signed-in owner confirms the code on an account page that shows what is
// asking (the machine's name the CLI sent, its address, when), and approves or denies. On its next
// poll after an approval the CLI gets a new API key, once.
//
// Codes live 15 minutes (as GitHub's do) and are used once. The device code is 32 random bytes and
// stored only as its hash; the user code is 8 letters from an alphabet without vowels or look-alikes
// (20^8, about 2.6e10), shown as XXXX-XXXX, and guessing is throttled per address, per account and
// per code wherever a code is entered (throttle.ts). A poll sooner than the interval answers `slow_down` and
// lengthens the interval by 5 seconds, as RFC 8628 section 3.5 says. Every change is a compare-and-
// set on the row as it was read, so two polls, or a poll and an approval, never both win.
// Every backend implements DeviceLoginStore and passes device-logins.contract.ts.
import { createHash, randomBytes, randomInt } from 'node:crypto';

export const DEVICE_CODE_TTL_MS = 15 * 60_000;
export const POLL_INTERVAL_MS = 5_000;
const SLOW_DOWN_MS = 5_000;
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;
export const CLIENT_NAME_MAX = 60;

export type DeviceLoginState = 'pending' | 'approved' | 'denied' | 'used';

export interface DeviceLogin {
  deviceHash: string;
  /** Stored without its hyphen: `BCDFGHJK`. */
  userCode: string;
  /** The machine's name, as the CLI sent it. */
  clientName: string;
  /** Where the CLI asked from (client-address.ts key). */
  clientAddress: string;
  createdAt: number;
  expiresAt: number;
  intervalMs: number;
  lastPollAt: number | null;
  state: DeviceLoginState;
  /** Who approved or denied it. */
  userId: number | null;
}

export interface DeviceLoginStore {
  /** False when the user code is taken already (the caller draws another). */
  insert(login: DeviceLogin): Promise<boolean>;
  get(deviceHash: string): Promise<DeviceLogin | undefined>;
  byUserCode(userCode: string): Promise<DeviceLogin | undefined>;
  /** Writes `next` only while the row is as `expected` left it (state and last poll): true if it did. */
  replace(expected: DeviceLogin, next: DeviceLogin): Promise<boolean>;
  /** Forgets logins that expired at or before `before`. */
  deleteExpired(before: number): Promise<void>;
}

/** What a poll hears (RFC 8628 section 3.5), or the approver to make the key for. */
export type PollAnswer =
  | { granted: { userId: number; clientName: string } }
  | { error: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant' };

const hashOf = (deviceCode: string) => createHash('sha256').update(deviceCode).digest('hex');

/** A typed user code without case, spaces or hyphens, cut short: what its tries are counted under. */
export function userCodeKey(given: string): string {
  return given.toUpperCase().replace(/[\s-]/g, '').slice(0, 20);
}

/** `bcdf-ghjk`, `BCDFGHJK `: the stored form, or undefined for what cannot be a user code. */
export function normaliseUserCode(given: string): string | undefined {
  const code = userCodeKey(given);
  if (code.length !== USER_CODE_LENGTH) return undefined;
  return [...code].every((letter) => USER_CODE_ALPHABET.includes(letter)) ? code : undefined;
}

/** `BCDF-GHJK`, as people read and type it. */
export function displayUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

export class DeviceLogins {
  constructor(
    private readonly store: DeviceLoginStore,
    private readonly now: () => number,
  ) {}

  /** A new pair of codes for a CLI on `clientName` asking from `clientAddress`. */
  async start(clientName: string, clientAddress: string) {
    const now = this.now();
    await this.store.deleteExpired(now);
    const deviceCode = randomBytes(32).toString('base64url');
    for (;;) {
      const userCode = Array.from(
        { length: USER_CODE_LENGTH },
        () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)],
      ).join('');
      const stored = await this.store.insert({
        deviceHash: hashOf(deviceCode),
        userCode,
        clientName:
          clientName
            .replace(/\p{Cc}/gu, '')
            .trim()
            .slice(0, CLIENT_NAME_MAX) || 'a computer',
        clientAddress,
        createdAt: now,
        expiresAt: now + DEVICE_CODE_TTL_MS,
        intervalMs: POLL_INTERVAL_MS,
        lastPollAt: null,
        state: 'pending',
        userId: null,
      });
      if (stored)
        return { deviceCode, userCode, expiresInMs: DEVICE_CODE_TTL_MS, intervalMs: POLL_INTERVAL_MS };
    }
  }

  /** The pending, unexpired login a user typed the code of; undefined for any other code. */
  async pending(userCode: string): Promise<DeviceLogin | undefined> {
    const code = normaliseUserCode(userCode);
    const login = code === undefined ? undefined : await this.store.byUserCode(code);
    return login?.state === 'pending' && login.expiresAt > this.now() ? login : undefined;
  }

  /** The owner's answer to a pending login: false when it is no longer pending (or expired). */
  async decide(userCode: string, userId: number, approve: boolean): Promise<boolean> {
    const login = await this.pending(userCode);
    if (login === undefined) return false;
    return this.store.replace(login, { ...login, state: approve ? 'approved' : 'denied', userId });
  }

  /** The CLI's poll with its device code. */
  async poll(deviceCode: string): Promise<PollAnswer> {
    const now = this.now();
    const login = await this.store.get(hashOf(deviceCode));
    if (login === undefined || login.state === 'used') return { error: 'invalid_grant' };
    if (login.expiresAt <= now) return { error: 'expired_token' };
    if (login.state === 'denied') return { error: 'access_denied' };
    if (login.state === 'approved' && login.userId !== null) {
      const used = await this.store.replace(login, { ...login, state: 'used', lastPollAt: now });
      return used
        ? { granted: { userId: login.userId, clientName: login.clientName } }
        : { error: 'invalid_grant' };
    }
    const tooSoon = login.lastPollAt !== null && now - login.lastPollAt < login.intervalMs;
    const next = { ...login, lastPollAt: now, intervalMs: login.intervalMs + (tooSoon ? SLOW_DOWN_MS : 0) };
    // A poll that lost the race to another (or to the approval) is told to slow down.
    if (!(await this.store.replace(login, next)) || tooSoon) return { error: 'slow_down' };
    return { error: 'authorization_pending' };
  }
}
