// Which workers of the deployment take jobs, and how many at once, so that an API process, which runs
// none itself, knows the deployment's capacity (admission's expected wait, admission/queue-wait.ts).
// Each worker says so in one sorted set beside BullMQ's keys, as `<token>:<slots>` scored by when its
// word runs out, and renews it every third of ALIVE_MS: a worker that died drops out within ALIVE_MS.
// It renews it too as soon as its connection is back after an outage: a Redis that restarted empty has
// forgotten every worker, and until they speak again the API processes refuse synchronous calls as if
// none were alive.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A worker silent this long is gone. */
const ALIVE_MS = 30_000;
/** How long a read of the capacity is used again before Redis is asked anew. */
const CAPACITY_FRESH_MS = 1_000;

export class WorkerRegistry {
  readonly #member: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #renew: (() => void) | undefined;
  #read: { at: number; capacity: Promise<number> } | undefined;

  /** `key`: the sorted set's; `slots`: this process's concurrency, where it runs jobs. */
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    slots: number | undefined,
  ) {
    this.#member = slots === undefined ? undefined : `${randomBytes(8).toString('hex')}:${slots}`;
  }

  /** Says this worker takes jobs, now and until stop(); nothing where the process runs none. */
  async start(): Promise<void> {
    const member = this.#member;
    if (member === undefined) return;
    const renew = () => this.redis.zadd(this.key, Date.now() + ALIVE_MS, member);
    await renew();
    this.#renew = () => void renew().catch(() => {});
    this.#timer = setInterval(this.#renew, ALIVE_MS / 3);
    this.#timer.unref();
    this.redis.on('ready', this.#renew);
  }

  /** The slots of the workers alive now, read at most once a second while there are any. */
  capacity(): Promise<number> {
    const now = Date.now();
    if (this.#read === undefined || now - this.#read.at > CAPACITY_FRESH_MS) {
      const capacity = this.#sum(now);
      // A failed read is not kept, nor one that found no worker (workers starting beside this
      // process register a moment later): the next call asks again.
      capacity.then(
        (slots) => {
          if (slots === 0 && this.#read?.capacity === capacity) this.#read = undefined;
        },
        () => {
          if (this.#read?.capacity === capacity) this.#read = undefined;
        },
      );
      this.#read = { at: now, capacity };
    }
    return this.#read.capacity;
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    if (this.#renew !== undefined) this.redis.off('ready', this.#renew);
    if (this.#member !== undefined && this.#timer !== undefined)
      await this.redis.zrem(this.key, this.#member);
  }

  async #sum(now: number): Promise<number> {
    const members = await this.redis.zrangebyscore(this.key, now, '+inf');
    return members.reduce((sum, member) => sum + Number(member.split(':')[1] ?? 0), 0);
  }
}
