// Whether the Redis that keeps the rate windows keeps them on disk. A Redis that persists nothing
// (no append-only file, no snapshots) forgets every window when it restarts, and each user gets a full
// hour's calls again: a Free user got 20 calls in one hour so. Read at start from `INFO persistence`,
// which every Redis answers (managed ones often refuse CONFIG), with `CONFIG GET save` as the finer
// word where it is allowed; a server that persists nothing is warned about, not refused: it works.
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

export type Persistence =
  /** The append-only file: every admitted request is on disk within a second. */
  | 'aof'
  /** RDB snapshots: what happened since the last one is lost with a restart. */
  | 'snapshots'
  | 'none'
  /** CONFIG refused and no snapshot taken since Redis started: it cannot be told from here. */
  | 'unknown';

/** The `field:value` lines of an INFO section. */
export function infoFields(info: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of info.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) fields.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return fields;
}

/**
 * What `INFO persistence` and, when allowed, `CONFIG GET save` (`undefined` when refused) say: AOF
 * on; else a save policy; else, without CONFIG, snapshots taken since Redis started.
 */
export function persistenceOf(info: string, savePolicy: string | undefined): Persistence {
  const fields = infoFields(info);
  if (fields.get('aof_enabled') === '1') return 'aof';
  if (savePolicy !== undefined) return savePolicy.trim() === '' ? 'none' : 'snapshots';
  const saved =
    Number(fields.get('rdb_saves') ?? 0) > 0 || (fields.get('rdb_last_bgsave_time_sec') ?? '-1') !== '-1';
  return saved ? 'snapshots' : 'unknown';
}

async function savePolicy(redis: Redis): Promise<string | undefined> {
  try {
    const reply = (await redis.call('CONFIG', 'GET', 'save')) as string[];
    return reply[1] ?? '';
  } catch {
    return undefined;
  }
}

const ADVICE =
  'Turn on the append-only file (appendonly yes; on a managed Redis, its persistence or backup ' +
  'setting), or at least snapshots (save), so that rate limits survive a restart of Redis.';

/** Logs, once at start, what a restart of the rate windows' Redis would cost; never fails the start. */
export async function warnIfForgetful(redis: Redis, where: string, log: Logger): Promise<Persistence> {
  let persistence: Persistence;
  try {
    persistence = persistenceOf((await redis.info('persistence')) as string, await savePolicy(redis));
  } catch (error) {
    log.info('Redis: could not read INFO persistence; whether rate windows survive its restart is unknown', {
      redis: where,
      error,
    });
    return 'unknown';
  }
  if (persistence === 'none')
    log.warn(
      'Redis keeps nothing on disk (no append-only file, no snapshots): when it restarts, every rate window is forgotten and each user gets a full hour of calls again',
      { redis: where, fix: ADVICE },
    );
  else if (persistence === 'unknown')
    log.warn(
      'Redis has no append-only file, refuses CONFIG and has taken no snapshot since it started: if it persists nothing, a restart forgets every rate window',
      { redis: where, fix: ADVICE },
    );
  else if (persistence === 'snapshots')
    log.info('Redis keeps snapshots only: a restart forgets the calls since the last one', { redis: where });
  return persistence;
}
