// One sweeper at a time over a shared store, on the machine's Redis (test-services.ts).
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { missingService, TEST_REDIS_URL, uniqueName } from '../test-services.js';
import { redisSweepLock } from './redis-sweep-lock.js';

const missing = await missingService('Redis');

describe.skipIf(missing !== undefined)('redisSweepLock', () => {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true });
  const key = uniqueName('pdn-test-lock');
  afterAll(async () => {
    await redis.del(key);
    redis.disconnect();
  });

  it('lets one process sweep while the other skips, then lets the other in', async () => {
    const [one, two] = [redisSweepLock(redis, key), redisSweepLock(redis, key)];
    let release = () => {};
    const held = one.whileHeld(
      () => new Promise<string>((resolve) => (release = () => resolve('one swept'))),
    );
    await expect.poll(() => redis.exists(key)).toBe(1);
    expect(await two.whileHeld(async () => 'two swept')).toBeUndefined();
    release();
    expect(await held).toBe('one swept');
    expect(await two.whileHeld(async () => 'two swept')).toBe('two swept');
  });

  it('gives the lock back when the sweep fails', async () => {
    const lock = redisSweepLock(redis, key);
    await expect(lock.whileHeld(() => Promise.reject(new Error('bucket gone')))).rejects.toThrow(
      'bucket gone',
    );
    expect(await redis.exists(key)).toBe(0);
  });
});
