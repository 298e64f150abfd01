// What a database backend hands the contract suites (STYLE.md 16, unstorage's testDriver): fresh, empty
// stores on a clock the test moves, and a second handle on the same data, as another server process or
// a restart would have. database/sqlite/sqlite.test.ts and database/postgres/postgres.test.ts run every
// *.contract.ts with it.
import { afterEach, beforeEach } from 'vitest';
import { type Accounts, composeAccounts } from '../accounts/index.js';
import { openSqliteStores } from './sqlite/index.js';
import type { Stores } from './stores.js';

export interface Backend {
  name: string;
  /** Empty stores (no users) reading the time from `now`. */
  open(now: () => number): Promise<Stores>;
  /** Another handle on the data of the last open(), as a second process sees it. */
  openAgain(now: () => number): Promise<Stores>;
  /** Removes what open() made. */
  dispose(): Promise<void>;
}

export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** The accounts composed with their policy, as the server uses them, and the other rooms' stores beside them. */
export interface Opened extends Accounts {
  jobs: Stores['jobs'];
  idempotency: Stores['idempotency'];
  deliveries: Stores['deliveries'];
}

export interface Fixture {
  accounts: Opened;
  /** The backend's own stores under `accounts`, for what the policy hides (what was pruned). */
  stores: Stores;
  /** Milliseconds since the epoch, as every store and policy sees them. */
  clock: number;
  /** A second handle on the same data, closed after the test. */
  again(): Promise<Opened>;
}

function opened(stores: Stores, now: () => number): Opened {
  const { jobs, idempotency, deliveries } = stores;
  return { ...composeAccounts(stores, { now }), jobs, idempotency, deliveries };
}

/** Registers fresh stores per test on `backend`; read them from the returned fixture inside tests. */
export function useAccounts(backend: Backend): Fixture {
  const others: Stores[] = [];
  const fixture = {
    clock: T0,
    accounts: undefined as unknown as Opened,
    stores: undefined as unknown as Stores,
    async again() {
      const other = await backend.openAgain(() => fixture.clock);
      others.push(other);
      return opened(other, () => fixture.clock);
    },
  };
  beforeEach(async () => {
    fixture.clock = T0;
    fixture.stores = await backend.open(() => fixture.clock);
    fixture.accounts = opened(fixture.stores, () => fixture.clock);
  });
  afterEach(async () => {
    for (const other of others.splice(0)) await other.close();
    await fixture.stores.close();
    await backend.dispose();
  });
  return fixture;
}

/** Every store over `<dataDir>/pdn.sqlite` with the accounts composed, for tests beyond the contracts. */
export function openSqliteForTest(
  dataDir: string,
  options: { now?: () => number } = {},
): Opened & { close(): Promise<void> } {
  const stores = openSqliteStores(dataDir, options.now);
  return { ...opened(stores, options.now ?? Date.now), close: () => stores.close() };
}
