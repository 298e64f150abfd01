// One sweeper at a time over a shared bucket: a Redis lock taken with SET NX PX and given
// back only by its holder (a Lua compare-and-delete), so a sweep that overruns its lease cannot delete
// the next holder's lock. The lease outlives any sweep we expect; a crashed holder's lock just expires.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { SweepLock } from './sweeper.js';

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export function redisSweepLock(redis: Redis, key: string, leaseMs = 5 * 60_000): SweepLock {
  return {
    async whileHeld(work) {
      const token = randomBytes(16).toString('hex');
      if ((await redis.set(key, token, 'PX', leaseMs, 'NX')) !== 'OK') return undefined;
      try {
        return await work();
      } finally {
        await redis.eval(RELEASE, 1, key, token);
      }
    },
  };
}
