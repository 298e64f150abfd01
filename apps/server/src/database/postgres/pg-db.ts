// The one door the PostgreSQL stores use to the pool they are handed (STYLE.md 14: the pool is the
// composition module's; this file only borrows it): queries, transactions, and the translation of
// connection failures into `503 service_unavailable` (unreachable.ts). Timestamps are BIGINT
// milliseconds, which node-postgres returns as strings: rows are read through num().
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { orUnavailable } from '../../unreachable.js';

const SERVICE = 'accounts database (PostgreSQL)';

export type Params = readonly unknown[];

/** A query runner: the pool itself, or one client inside a transaction. */
export interface Sql {
  rows<Row extends QueryResultRow>(text: string, params?: Params): Promise<Row[]>;
  /** Rows changed by an INSERT, UPDATE or DELETE. */
  changes(text: string, params?: Params): Promise<number>;
}

/** Names given to the statements with parameters, one per text (every text here is a constant). */
const statementNames = new Map<string, string>();

/**
 * A query with parameters as a named statement when `prepared`: each pooled connection parses and
 * plans it once, not at every call (the key lookup runs on every request). Unnamed, for a pooler
 * whose server connections cannot carry it, it is parsed at every call. One without parameters stays
 * a simple query, which may hold several statements (the migrations).
 */
function query(text: string, params: Params, prepared: boolean) {
  if (params.length === 0) return { text };
  if (!prepared) return { text, values: params as unknown[] };
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `pdn_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return { name, text, values: params as unknown[] };
}

function runner(target: Pool | PoolClient, prepared: boolean): Sql {
  return {
    async rows<Row extends QueryResultRow>(text: string, params: Params = []) {
      return (await target.query<Row>(query(text, params, prepared))).rows;
    },
    async changes(text: string, params: Params = []) {
      return (await target.query(query(text, params, prepared))).rowCount ?? 0;
    },
  };
}

/** BIGINT and COUNT(*) as numbers: every value here (milliseconds, ids, counts) is below 2^53. */
export function num(value: string | number): number;
export function num(value: string | number | null): number | null;
export function num(value: string | number | null): number | null {
  return value === null ? null : Number(value);
}

/** An advisory lock of ours: a namespace (four letters as a number) and a key in it (a user id). */
export interface AdvisoryLock {
  readonly namespace: number;
  readonly key: number;
}

export class PgDb implements Sql {
  private readonly sql: Sql;
  /** Per lock, the last transaction of this process waiting for it (lockedTransaction). */
  readonly #lockTurns = new Map<string, Promise<unknown>>();

  /** `preparedStatements`: whether queries with parameters are named statements (see query()). */
  constructor(
    private readonly pool: Pool,
    private readonly preparedStatements = true,
  ) {
    this.sql = runner(pool, preparedStatements);
  }

  rows<Row extends QueryResultRow>(text: string, params?: Params): Promise<Row[]> {
    return orUnavailable(SERVICE, () => this.sql.rows<Row>(text, params));
  }

  changes(text: string, params?: Params): Promise<number> {
    return orUnavailable(SERVICE, () => this.sql.changes(text, params));
  }

  /** Runs `work` in one transaction on one client: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return orUnavailable(SERVICE, async () => {
      const client = await this.pool.connect();
      let broken: unknown;
      try {
        await client.query('BEGIN');
        const result = await work(runner(client, this.preparedStatements));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: unknown) => {
          // A client whose connection died cannot go back to the pool.
          broken = rollbackError;
        });
        throw error;
      } finally {
        client.release(broken instanceof Error ? broken : undefined);
      }
    });
  }

  /**
   * `work` in a transaction that holds `lock` (pg_advisory_xact_lock) from its first statement, so
   * that every process takes such transactions on one key one at a time. Within this process they
   * also wait their turn before taking a pooled connection: a burst of one user's requests would
   * otherwise fill the pool with connections all waiting on one lock, and the requests behind them
   * would time out waiting for a connection (503) while PostgreSQL itself is idle.
   */
  lockedTransaction<T>(lock: AdvisoryLock, work: (sql: Sql) => Promise<T>): Promise<T> {
    const id = `${lock.namespace}:${lock.key}`;
    const turn = (this.#lockTurns.get(id) ?? Promise.resolve()).then(() =>
      this.transaction(async (sql) => {
        await sql.rows('SELECT pg_advisory_xact_lock($1, $2)', [lock.namespace, lock.key]);
        return work(sql);
      }),
    );
    const settled = turn.then(
      () => undefined,
      () => undefined,
    );
    this.#lockTurns.set(id, settled);
    void settled.then(() => {
      if (this.#lockTurns.get(id) === settled) this.#lockTurns.delete(id);
    });
    return turn;
  }
}
