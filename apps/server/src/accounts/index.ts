// The accounts door: users, API keys and rate limits over one SQLite database. The HTTP layer and the
// admin command use this and never see SQL.
import { ApiKeys } from './api-keys.js';
import { openDatabase } from './database.js';
import { RateLimiter } from './rate-limiter.js';
import { Users } from './users.js';

export type { ApiKeyRecord, Principal } from './api-keys.js';
export { hasDatabase } from './database.js';
export type { KeyKind } from './key-format.js';
export { isPlan, PLANS, type Plan, type PlanLimits, planLimits, planTitle } from './plans.js';
export type { RateDecision } from './rate-limiter.js';
export { InvalidUserNameError, type User } from './users.js';

export interface Accounts {
  users: Users;
  keys: ApiKeys;
  rateLimiter: RateLimiter;
  close(): void;
}

export function openAccounts(dataDir: string, now: () => number = Date.now): Accounts {
  const db = openDatabase(dataDir);
  return {
    users: new Users(db, now),
    keys: new ApiKeys(db, now),
    rateLimiter: new RateLimiter(db, now),
    close: () => db.close(),
  };
}
