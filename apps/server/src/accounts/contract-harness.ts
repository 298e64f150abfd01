// What a backend hands the contract suites (STYLE.md 16, unstorage's testDriver): fresh, empty
// accounts on a clock the test moves, and a second handle on the same data, as another server process
// or a restart would have. sqlite/sqlite.test.ts runs every *.contract.ts with it; a PostgreSQL backend
// will run the same suites.
import { afterEach, beforeEach } from 'vitest';
import { type AccountStores, type Accounts, composeAccounts } from './index.js';

export interface Backend {
  name: string;
  /** Empty stores (no users) reading the time from `now`. */
  open(now: () => number): Promise<AccountStores>;
  /** Another handle on the data of the last open(), as a second process sees it. */
  openAgain(now: () => number): Promise<AccountStores>;
  /** Removes what open() made. */
  dispose(): Promise<void>;
}

export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

export interface Fixture {
  /** The stores composed with the one policy, as the server uses them. */
  accounts: Accounts;
  /** The backend's own stores under `accounts`, for what the policy hides (what was pruned). */
  stores: AccountStores;
  /** Milliseconds since the epoch, as every store and policy sees them. */
  clock: number;
  /** A second handle on the same data, closed after the test. */
  again(): Promise<Accounts>;
}

/** Registers fresh accounts per test on `backend`; read them from the returned fixture inside tests. */
export function useAccounts(backend: Backend): Fixture {
  const others: Accounts[] = [];
  const fixture = {
    clock: T0,
    accounts: undefined as unknown as Accounts,
    stores: undefined as unknown as AccountStores,
    async again() {
      const other = composeAccounts(await backend.openAgain(() => fixture.clock), {
        now: () => fixture.clock,
      });
      others.push(other);
      return other;
    },
  };
  beforeEach(async () => {
    fixture.clock = T0;
    fixture.stores = await backend.open(() => fixture.clock);
    fixture.accounts = composeAccounts(fixture.stores, { now: () => fixture.clock });
  });
  afterEach(async () => {
    for (const other of others.splice(0)) await other.close();
    await fixture.accounts.close();
    await backend.dispose();
  });
  return fixture;
}
