import { describe, expect, it } from 'vitest';
import { InstancePool, type PooledInstance } from './instance-pool.js';

class Fake implements PooledInstance {
  static started = 0;
  readonly id = ++Fake.started;
  alive = true;
  conversions = 0;
  tainted = false;
  closed = false;
  /** Settles when the fake finished with its last document; already so unless a test holds it. */
  finishing: Promise<void> = Promise.resolve();

  async settled(): Promise<void> {
    await this.finishing;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.alive = false;
  }
}

const quiet = { info: () => {}, warn: () => {} };

function pool(recycleAfter = 3) {
  const started: Fake[] = [];
  const instances = new InstancePool<Fake>({
    recycleAfter,
    idleMs: 60_000,
    settleMs: 60_000,
    log: quiet,
    start: async () => {
      const fake = new Fake();
      started.push(fake);
      return fake;
    },
  });
  return { instances, started };
}

describe('InstancePool', () => {
  it('keeps an instance warm for the next conversion, and ends it after recycleAfter', async () => {
    const { instances, started } = pool(3);
    const used: number[] = [];
    for (let i = 0; i < 4; i++) await instances.run(async (fake) => used.push(fake.id));
    expect(used).toEqual([started[0]?.id, started[0]?.id, started[0]?.id, started[1]?.id]);
    expect(started[0]?.closed).toBe(true);
    await instances.close();
    expect(started[1]?.closed).toBe(true);
  });

  it('ends an instance after any failure, and starts another for the next', async () => {
    const { instances, started } = pool();
    await expect(
      instances.run(async () => {
        throw new Error('the document broke it');
      }),
    ).rejects.toThrow('the document broke it');
    await instances.run(async () => {});
    expect(started.map((fake) => fake.closed)).toEqual([true, false]);
    await instances.close();
  });

  it('ends an instance a document tainted, before any other document', async () => {
    const { instances, started } = pool();
    await instances.run(async (fake) => {
      fake.tainted = true;
    });
    await instances.run(async () => {});
    expect(started).toHaveLength(2);
    expect(started[0]?.closed).toBe(true);
    await instances.close();
  });

  it('runs conversions at once in instances of their own, never sharing one', async () => {
    const { instances, started } = pool();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = instances.run(() => held);
    const second = instances.run(async () => {});
    await second;
    expect(started).toHaveLength(2);
    release();
    await first;
    await instances.close();
  });

  it('hands an instance on only once it finished with its last document', async () => {
    const { instances, started } = pool();
    let finish = () => {};
    await instances.run(async (fake) => {
      fake.finishing = new Promise((resolve) => {
        finish = resolve;
      });
    });
    const events: string[] = [];
    const next = instances.run(async () => {
      events.push('converted');
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    events.push('finished');
    finish();
    await next;
    expect(events).toEqual(['finished', 'converted']);
    expect(started).toHaveLength(1);
    await instances.close();
  });

  it('starts another instance when one died finishing its last document', async () => {
    const { instances, started } = pool();
    await instances.run(async (fake) => {
      fake.finishing = Promise.resolve().then(() => {
        fake.alive = false;
      });
    });
    const used: number[] = [];
    await instances.run(async (fake) => used.push(fake.id));
    expect(used).toEqual([started[1]?.id]);
    expect(started[0]?.closed).toBe(true);
    await instances.close();
  });

  it('drops an instance that died while idle', async () => {
    const { instances, started } = pool();
    await instances.run(async () => {});
    if (started[0]) started[0].alive = false;
    await instances.run(async () => {});
    expect(started).toHaveLength(2);
    await instances.close();
  });
});
