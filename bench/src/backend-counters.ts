// What the shared backends did between two readings, counted by the backends themselves (the bench's
// backend-cost scenario): Redis's `INFO commandstats` (every command, including those a Lua script
// runs: Redis 7 counts each redis.call() of a script as a command of its own beside the EVALSHA that
// ran it) and its CPU (`used_cpu_user` + `used_cpu_sys`, the process's getrusage); PostgreSQL's
// pg_stat_statements (with `pg_stat_statements.track = all`, statements PostgreSQL runs inside another,
// such as a foreign key's check, count too, `toplevel` false), by the role that ran them.
import type { Redis } from 'ioredis';
import type pg from 'pg';

/** What one process or phase cost the backends over `seconds`. */
export interface Work {
  seconds: number;
  /** Redis commands by name (`evalsha`, `hget`, `client|setname`...), those run inside scripts included. */
  redis: Map<string, number>;
  /** Microseconds Redis spent in each command (commandstats `usec`: an EVALSHA's holds its script's commands'). */
  redisUsec: Map<string, number>;
  /** Redis's CPU seconds, user and system. */
  redisCpuSeconds: number;
  /**
   * PostgreSQL statements by the role that ran them and their normalized text, `[role] text`; nested
   * ones (run inside another) `[role] (nested) text`.
   */
  pg: Map<string, number>;
  /** PostgreSQL's top-level statements by the role that ran them. */
  pgByRole: Map<string, number>;
  /** PostgreSQL's execution time of the top-level statements (which holds their nested ones'), ms. */
  pgMs: number;
}

const NESTED = '(nested) ';

export const isNested = (statement: string) => statement.includes(`] ${NESTED}`);
export const sum = (counts: ReadonlyMap<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
export const pgTopLevel = (work: Work) => sum(work.pgByRole);

interface RedisReading {
  calls: Map<string, number>;
  usec: Map<string, number>;
  cpuSeconds: number;
}

async function readRedis(client: Redis): Promise<RedisReading> {
  const info = String(await client.call('INFO', 'cpu', 'commandstats'));
  const calls = new Map<string, number>();
  const usec = new Map<string, number>();
  for (const [, name, count, time] of info.matchAll(/^cmdstat_(\S+?):calls=(\d+),usec=(\d+),/gm)) {
    calls.set(name as string, Number(count));
    usec.set(name as string, Number(time));
  }
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return { calls, usec, cpuSeconds: field('used_cpu_user') + field('used_cpu_sys') };
}

interface Statement {
  role: string;
  query: string;
  toplevel: boolean;
  calls: string;
  ms: number;
}

/** Adds `n` to `key`'s count. */
export function add(counts: Map<string, number>, key: string, n = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + n);
}

/** Counts pdn's statements in its database: those of `observer` (this bench's role) are left out. */
export class StatementCounter {
  private constructor(
    private readonly client: pg.Client,
    private readonly dbid: number,
    private readonly observer: number,
  ) {}

  /** `client`: connected to pdn's database as a role of the bench's own, pg_stat_statements installed. */
  static async open(client: pg.Client): Promise<StatementCounter> {
    const { rows } = await client.query<{ dbid: number; observer: number }>(
      `SELECT (SELECT oid FROM pg_database WHERE datname = current_database())::int AS dbid,
              (SELECT oid FROM pg_roles WHERE rolname = current_user)::int AS observer`,
    );
    const [ids] = rows;
    if (ids === undefined) throw new Error('no database or role id');
    return new StatementCounter(client, ids.dbid, ids.observer);
  }

  async reset(): Promise<void> {
    await this.client.query('SELECT pg_stat_statements_reset()');
  }

  async read(): Promise<Pick<Work, 'pg' | 'pgByRole' | 'pgMs'>> {
    const { rows } = await this.client.query<Statement>(
      `SELECT r.rolname AS role, s.query, s.toplevel, s.calls, s.total_exec_time AS ms
         FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
        WHERE s.dbid = $1 AND s.userid <> $2`,
      [this.dbid, this.observer],
    );
    const read: Pick<Work, 'pg' | 'pgByRole' | 'pgMs'> = { pg: new Map(), pgByRole: new Map(), pgMs: 0 };
    for (const row of rows) {
      const query = `[${row.role}] ${row.toplevel ? '' : NESTED}${row.query.replace(/\s+/g, ' ').trim()}`;
      add(read.pg, query, Number(row.calls));
      if (!row.toplevel) continue;
      add(read.pgByRole, row.role, Number(row.calls));
      read.pgMs += row.ms;
    }
    return read;
  }
}

/** Reads both backends around a phase: `start()` before it, `stop()` after it. */
export class BackendCounters {
  constructor(
    private readonly redis: Redis,
    private readonly statements?: StatementCounter,
  ) {}

  async start(): Promise<() => Promise<Work>> {
    await this.statements?.reset();
    const before = await readRedis(this.redis);
    const started = performance.now();
    return async () => {
      const after = await readRedis(this.redis);
      const seconds = (performance.now() - started) / 1000;
      const redis = new Map<string, number>();
      const redisUsec = new Map<string, number>();
      for (const [name, calls] of after.calls) {
        // The first reading's own INFO is counted by the second.
        const delta = calls - (before.calls.get(name) ?? 0) - (name === 'info' ? 1 : 0);
        if (delta <= 0) continue;
        redis.set(name, delta);
        redisUsec.set(name, (after.usec.get(name) ?? 0) - (before.usec.get(name) ?? 0));
      }
      const statements = (await this.statements?.read()) ?? { pg: new Map(), pgByRole: new Map(), pgMs: 0 };
      return {
        seconds,
        redis,
        redisUsec,
        redisCpuSeconds: after.cpuSeconds - before.cpuSeconds,
        ...statements,
      };
    };
  }
}

/** `work` less `idle`'s rate over the same seconds, per call (`calls`); `seconds` per call too. */
export function perCall(work: Work, idle: Work | undefined, calls: number): Work {
  const scale = idle === undefined ? 0 : work.seconds / idle.seconds;
  const net = (mine: Map<string, number>, theirs: Map<string, number> | undefined) => {
    const out = new Map<string, number>();
    for (const key of new Set([...mine.keys(), ...(theirs?.keys() ?? [])])) {
      const value = ((mine.get(key) ?? 0) - (theirs?.get(key) ?? 0) * scale) / calls;
      if (Math.abs(value) >= 0.005) out.set(key, value);
    }
    return out;
  };
  return {
    seconds: work.seconds / calls,
    redis: net(work.redis, idle?.redis),
    redisUsec: net(work.redisUsec, idle?.redisUsec),
    redisCpuSeconds: (work.redisCpuSeconds - (idle?.redisCpuSeconds ?? 0) * scale) / calls,
    pg: net(work.pg, idle?.pg),
    pgByRole: net(work.pgByRole, idle?.pgByRole),
    pgMs: (work.pgMs - (idle?.pgMs ?? 0) * scale) / calls,
  };
}

/** What `more` holds beyond `less`, per second: the rate one process of a pair adds to the other's. */
export function without(more: Work, less: Work): Work {
  const perSecond = (work: Work) => perCall(work, undefined, work.seconds);
  return perCall(perSecond(more), perSecond(less), 1);
}
