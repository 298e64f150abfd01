// Which running jobs an `--role all` process started for its own callers, at once, on the uploads
// where they were (bullmq-job-queue.ts), kept in Redis beside BullMQ's keys. No BullMQ job carries
// them, so the feeder looking for jobs no BullMQ job carries (feeder.ts) asks here first: it leaves a
// job to a process that still lives, and cancels the job of one that died, whose caller went with it
// and whose inputs never left it. A process says it lives with a key that expires unless renewed.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A process silent this long is gone; it renews its key every third of it. */
const ALIVE_MS = 30_000;
/** A mark outlives any synchronous call (it is removed when the job ends); a lost one just expires. */
const MARK_MS = 24 * 60 * 60_000;

export class StartedHereMarks {
  readonly #token = randomBytes(8).toString('hex');
  #timer: NodeJS.Timeout | undefined;

  /** `prefix`: the queue's keys (`<PDN_REDIS_KEY_PREFIX>bull:jobs:`). */
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  #alive(token: string): string {
    return `${this.prefix}alive:${token}`;
  }

  #mark(id: string): string {
    return `${this.prefix}here:${id}`;
  }

  /** Says this process lives, now and until stop(). */
  async start(): Promise<void> {
    const renew = () => this.redis.set(this.#alive(this.#token), '1', 'PX', ALIVE_MS);
    await renew();
    this.#timer = setInterval(() => void renew().catch(() => {}), ALIVE_MS / 3);
    this.#timer.unref();
  }

  async mark(id: string): Promise<void> {
    await this.redis.set(this.#mark(id), this.#token, 'PX', MARK_MS);
  }

  async unmark(id: string): Promise<void> {
    await this.redis.del(this.#mark(id));
  }

  /** Who started job `id` for its caller: a process alive or gone; undefined when none did. */
  async starter(id: string): Promise<'alive' | 'gone' | undefined> {
    const token = await this.redis.get(this.#mark(id));
    if (token === null) return undefined;
    return (await this.redis.exists(this.#alive(token))) === 1 ? 'alive' : 'gone';
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    if (this.#timer !== undefined) await this.redis.del(this.#alive(this.#token));
  }
}
