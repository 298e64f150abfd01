// The workers' slots as an API process reads them, on the real Redis (skipped, saying why, without it).
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { missingService, TEST_REDIS_URL, uniqueName } from '../../test-services.js';
import { until } from '../test-deployment.js';
import { WorkerRegistry } from './worker-registry.js';

const redisMissing = await missingService('Redis');

describe.skipIf(redisMissing !== undefined)('WorkerRegistry', () => {
  const redis = new Redis(TEST_REDIS_URL);
  const started: WorkerRegistry[] = [];
  afterEach(async () => {
    for (const registry of started.splice(0)) await registry.stop();
  });
  afterAll(() => redis.quit());
  const registry = (key: string, slots: number | undefined) => {
    const made = new WorkerRegistry(redis, key, slots);
    started.push(made);
    return made;
  };

  it('sums the slots of the workers alive, and sees a worker at once where it saw none', async () => {
    const key = uniqueName('pdn-test-workers');
    const api = registry(key, undefined);
    await api.start();
    expect(await api.capacity()).toBe(0);
    // Workers starting beside an API process that just found none: its next call counts them.
    await registry(key, 2).start();
    await registry(key, 3).start();
    expect(await api.capacity()).toBe(5);
  });

  it('speaks again as soon as its connection is back: a Redis that restarted empty knows it at once', async () => {
    const key = uniqueName('pdn-test-workers');
    const own = new Redis(TEST_REDIS_URL);
    try {
      await registry(key, undefined).start();
      const worker = new WorkerRegistry(own, key, 2);
      await worker.start();
      started.push(worker);
      // What a restart without persistence leaves: no word of any worker.
      await redis.del(key);
      const api = registry(key, undefined);
      expect(await api.capacity()).toBe(0);
      const back = new Promise((resolve) => own.once('ready', resolve));
      own.disconnect(true);
      await back;
      await until(async () => (await api.capacity()) === 2, 'the worker speaks again');
    } finally {
      for (const registry of started.splice(0)) await registry.stop();
      own.disconnect();
    }
  });
});
