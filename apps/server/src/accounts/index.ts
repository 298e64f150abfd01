// The accounts door (issue #12): users, API keys, sessions, sign-in throttling, one-time links and rate
// limits, as async interfaces that expose no connection types (STYLE.md 14). The HTTP layer and the
// admin command use only this; each backend (today SQLite, under sqlite/) supplies the stores, and
// composeAccounts() puts the one policy of each (expiry, windows, token handling) above them.
import type { IdempotencyStore } from '../idempotency/idempotency-store.js';
import type { JobStore } from '../jobs/job-store.js';
import type { DeliveryStore } from '../webhooks/delivery-store.js';
import { type WebhookSecretStore, WebhookSecrets } from '../webhooks/webhook-secrets.js';
import type { ApiKeyStore } from './api-keys.js';
import { type RateEventStore, RateLimiter } from './rate-limiter.js';
import { type SessionLimits, type SessionStore, Sessions } from './sessions.js';
import { type SignInLinkStore, SignInLinks } from './sign-in-links.js';
import { type AttemptStore, Throttle } from './throttle.js';
import type { UserStore } from './users.js';

export {
  type ApiKeyRecord,
  type ApiKeyStore,
  checkKeyName,
  InvalidKeyNameError,
  KEY_NAME_MAX,
  type Principal,
} from './api-keys.js';
export { InvalidEmailError, normaliseEmail } from './email.js';
export type { KeyKind } from './key-format.js';
export { hashPassword, NO_ACCOUNT_HASH, PASSWORD_MIN, passwordProblem, verifyPassword } from './passwords.js';
export { isPlan, PLANS, type Plan, type PlanLimits, planLimits, planTitle } from './plans.js';
export { type RateDecision, RateLimiter, type Usage, WINDOW_MS } from './rate-limiter.js';
export type { Session, SessionLimits, Sessions } from './sessions.js';
export { LINK_TTL_MS, type SignInLinks } from './sign-in-links.js';
export { type Attempt, RULES, type Throttle } from './throttle.js';
export {
  checkUserName,
  EmailTakenError,
  InvalidUserNameError,
  type User,
  type UserStore,
  userLabel,
} from './users.js';

/** What a backend provides: one store per kind of record, and how to let go of its connections. */
export interface AccountStores {
  users: UserStore;
  keys: ApiKeyStore;
  sessions: SessionStore;
  attempts: AttemptStore;
  signInLinks: SignInLinkStore;
  rateEvents: RateEventStore;
  /** Jobs live in the same database (issue #13); the runner (jobs/runner.ts) holds their policy. */
  jobs: JobStore;
  /** Idempotency-Key records (issue #14); http/middleware/idempotency.ts holds their policy. */
  idempotency: IdempotencyStore;
  /** Webhook secrets and deliveries (issue #14); webhooks/ holds their policy. */
  webhookSecrets: WebhookSecretStore;
  deliveries: DeliveryStore;
  close(): Promise<void>;
}

export interface Accounts {
  users: UserStore;
  keys: ApiKeyStore;
  sessions: Sessions;
  throttle: Throttle;
  signInLinks: SignInLinks;
  rateLimiter: RateLimiter;
  jobs: JobStore;
  idempotency: IdempotencyStore;
  webhookSecrets: WebhookSecrets;
  deliveries: DeliveryStore;
  close(): Promise<void>;
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
    throttle: new Throttle(stores.attempts, now),
    signInLinks: new SignInLinks(stores.signInLinks, now),
    rateLimiter: new RateLimiter(stores.rateEvents, now),
    jobs: stores.jobs,
    idempotency: stores.idempotency,
    webhookSecrets: new WebhookSecrets(stores.webhookSecrets, now),
    deliveries: stores.deliveries,
    close: () => stores.close(),
  };
}
