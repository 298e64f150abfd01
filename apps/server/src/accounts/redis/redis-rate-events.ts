// RateEventStore in Redis (rate-limiter.contract.ts): each user's admitted requests are a
// sorted set scored by time. admit() is ONE Lua script, which Redis runs atomically: drop what left
// the window, count, and add this request when there is room, under a member no other request has
// (two requests in the same millisecond are two members), then let the key expire an hour after its
// newest entry. So any number of processes share exact rolling-hour limits, one round trip each.
// That member names the event: release() removes exactly it.
// The policy (decide(), Retry-After) stays in rate-limiter.ts, above this primitive (STYLE.md 15).
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { orUnavailable } from '../../unreachable.js';
import { type Admission, type RateEventStore, type RateWindow, WINDOW_MS } from '../rate-limiter.js';

const SERVICE = 'rate-limit store (Redis)';

// KEYS[1] the user's set; ARGV: now (ms), window (ms), limit (-1: unlimited), unique member.
// Returns { used before this request, oldest score or -1, 1 when admitted else 0 }. A refusal only
// reads (two commands: a refused caller retrying fast costs Redis little); an admission also drops what
// left the window, so the set holds at most a window's entries.
const ADMIT = `
local since = '(' .. (tonumber(ARGV[1]) - tonumber(ARGV[2]))
local used = redis.call('ZCOUNT', KEYS[1], since, '+inf')
local limit = tonumber(ARGV[3])
local first
local admitted = 0
if limit < 0 or used < limit then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
  first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  admitted = 1
else
  first = redis.call('ZRANGEBYSCORE', KEYS[1], since, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
end
local oldest = -1
if first[2] then oldest = tonumber(first[2]) end
return { used, oldest, admitted }
`;

export class RedisRateEvents implements RateEventStore {
  /** `prefix` namespaces the keys (PDN_REDIS_KEY_PREFIX + `rate:`), so users of one Redis never meet. */
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('pdnAdmit', { numberOfKeys: 1, lua: ADMIT });
  }

  private key(userId: number): string {
    return `${this.prefix}${userId}`;
  }

  admit(userId: number, limit: number | null, now: number) {
    return orUnavailable(SERVICE, async (): Promise<Admission> => {
      const member = `${now}-${randomBytes(8).toString('hex')}`;
      const redis = this.redis as Redis & { pdnAdmit: AdmitCommand };
      const [used, oldest, admitted] = await redis.pdnAdmit(
        this.key(userId),
        now,
        WINDOW_MS,
        limit ?? -1,
        member,
      );
      const window = { used, oldest: oldest < 0 ? null : oldest };
      return admitted === 1 ? { ...window, admitted: true, event: member } : { ...window, admitted: false };
    });
  }

  release(userId: number, event: string) {
    return orUnavailable(SERVICE, async () => {
      await this.redis.zrem(this.key(userId), event);
    });
  }

  /** The entries younger than the window at `now` (those not yet trimmed may be older), as scores. */
  private scores(userId: number, now: number): Promise<number[]> {
    return orUnavailable(SERVICE, async () => {
      const flat = await this.redis.zrangebyscore(
        this.key(userId),
        `(${now - WINDOW_MS}`,
        '+inf',
        'WITHSCORES',
      );
      return flat.filter((_, index) => index % 2 === 1).map(Number);
    });
  }

  async peek(userId: number, now: number): Promise<RateWindow> {
    const scores = await this.scores(userId, now);
    return { used: scores.length, oldest: scores[0] ?? null };
  }

  async histogram(userId: number, now: number, slotMs: number) {
    const slots = Math.ceil(WINDOW_MS / slotMs);
    const start = now - slots * slotMs;
    const counts = new Array<number>(slots).fill(0);
    for (const at of await this.scores(userId, now)) {
      const slot = Math.floor((at - start - 1) / slotMs);
      if (slot >= 0 && slot < slots) counts[slot] = (counts[slot] ?? 0) + 1;
    }
    return counts;
  }
}

/** The script as defineCommand() adds it to the client. */
type AdmitCommand = (
  key: string,
  now: number,
  windowMs: number,
  limit: number,
  member: string,
) => Promise<[number, number, number]>;
