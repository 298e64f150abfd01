// The accounts door: users, API keys, sessions, sign-in throttling, one-time links, rate limits and
// each account's webhook secret, as async interfaces that expose no connection types (STYLE.md 14).
// The HTTP layer and the admin command use only this; each database backend (database/sqlite,
// database/postgres) supplies the stores, and composeAccounts() puts the one policy of each (expiry,
// windows, token handling) above them.
import type { ServerAddressStore } from '../server-address/server-address.js';
import { type WebhookSecretStore, WebhookSecrets } from '../webhooks/webhook-secrets.js';
import type { ApiKeyStore } from './api-keys.js';
import { type DeviceLoginStore, DeviceLogins } from './device-logins.js';
import { type RateEventStore, RateLimiter } from './rate-limiter.js';
import { type SessionLimits, type SessionStore, Sessions } from './sessions.js';
import { type SignInLinkStore, SignInLinks } from './sign-in-links.js';
import { type AttemptStore, type KnownAddressStore, Throttle } from './throttle.js';
import type { UserStore } from './users.js';

export {
  type ApiKeyRecord,
  type ApiKeyStore,
  checkKeyName,
  InvalidKeyNameError,
  isActive,
  KEY_NAME_MAX,
  type Principal,
} from './api-keys.js';
export { clientAddressKey } from './client-address.js';
export {
  CLIENT_NAME_MAX,
  type DeviceLogin,
  displayUserCode,
  type PollAnswer,
  userCodeKey,
} from './device-logins.js';
export { InvalidEmailError, normaliseEmail } from './email.js';
export { HashAbandonedError, NoHashPlaceError, type RefusalReason } from './hash-places.js';
export type { KeyKind } from './key-format.js';
export { type HashingClient, PasswordHasher } from './password-hasher.js';
export { NO_ACCOUNT_HASH, PASSWORD_MIN, passwordProblem } from './passwords.js';
export { isPlan, PLANS, type Plan, type PlanLimits, planLimits, planTitle } from './plans.js';
export { lookedAt, type RateDecision, RateLimiter, type Usage, WINDOW_MS } from './rate-limiter.js';
export type { Session, SessionLimits, Sessions } from './sessions.js';
export { LINK_TTL_MS, type SignInLinks } from './sign-in-links.js';
export { type Attempt, MISSED_CODE_RULES, type Reservation, RULES, type Throttle } from './throttle.js';
export {
  checkUserName,
  EmailTakenError,
  InvalidUserNameError,
  type User,
  type UserStore,
  userLabel,
} from './users.js';

/** The account records a database backend provides (database/stores.ts has the rest). */
export interface AccountStores {
  users: UserStore;
  keys: ApiKeyStore;
  sessions: SessionStore;
  attempts: AttemptStore;
  knownAddresses: KnownAddressStore;
  signInLinks: SignInLinkStore;
  /** `pdn login`'s device codes (device-logins.ts). */
  deviceLogins: DeviceLoginStore;
  rateEvents: RateEventStore;
  webhookSecrets: WebhookSecretStore;
  /** Where the server was reached at its latest start: the base of one-time sign-in links (server-address/). */
  serverAddress: ServerAddressStore;
}

export interface Accounts {
  users: UserStore;
  keys: ApiKeyStore;
  sessions: Sessions;
  throttle: Throttle;
  signInLinks: SignInLinks;
  deviceLogins: DeviceLogins;
  rateLimiter: RateLimiter;
  webhookSecrets: WebhookSecrets;
  serverAddress: ServerAddressStore;
}

export interface AccountsOptions {
  now?: () => number;
  /** Defaults: idle 60 minutes, at most 12 hours (config.ts PDN_SESSION_IDLE_MINUTES/MAX_HOURS). */
  sessionLimits?: SessionLimits;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { idleMs: 60 * 60_000, maxMs: 12 * 60 * 60_000 };

export function composeAccounts(stores: AccountStores, options: AccountsOptions = {}): Accounts {
  const now = options.now ?? Date.now;
  return {
    users: stores.users,
    keys: stores.keys,
    sessions: new Sessions(stores.sessions, now, options.sessionLimits ?? DEFAULT_SESSION_LIMITS),
    throttle: new Throttle(stores.attempts, stores.knownAddresses, now),
    signInLinks: new SignInLinks(stores.signInLinks, now),
    deviceLogins: new DeviceLogins(stores.deviceLogins, now),
    rateLimiter: new RateLimiter(stores.rateEvents, now),
    webhookSecrets: new WebhookSecrets(stores.webhookSecrets, now),
    serverAddress: stores.serverAddress,
  };
}
