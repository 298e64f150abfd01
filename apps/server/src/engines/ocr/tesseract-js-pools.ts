// One worker pool per language or combination (a worker is initialised for its languages), created on
// first use. Requests can name any combination of the accepted codes, so the number of pools is capped:
// past MAX_POOLS the least recently used pool with no job in it is closed.
import type { EngineLog } from '../types.js';
import type { LanguageData } from './language-registry.js';
import { UnreadableImageError } from './recognizer.js';
import { TesseractJsWorker } from './tesseract-js-worker.js';
import { WorkerPool } from './worker-pool.js';

/** Each warm worker holds its models and a wasm heap: 16-75 MB of RSS each, measured with eng, deu, fra, spa. */
const MAX_POOLS = 8;

export interface TesseractJsPoolOptions {
  poolSize: number;
  recycleAfter: number;
  timeoutMs: number;
  log: EngineLog;
}

export class TesseractJsPools {
  readonly #o: TesseractJsPoolOptions;
  /** In order of last use, oldest first (a Map keeps insertion order). */
  readonly #pools = new Map<string, WorkerPool<TesseractJsWorker>>();

  constructor(options: TesseractJsPoolOptions) {
    this.#o = options;
  }

  /** The pool for exactly these languages, in this order (`eng+deu` and `deu+eng` differ to tesseract). */
  for(languages: readonly LanguageData[]): WorkerPool<TesseractJsWorker> {
    const key = languages.map((language) => language.code).join('+');
    let pool = this.#pools.get(key);
    if (pool === undefined) {
      pool = new WorkerPool({
        name: `tesseract.js ${key}`,
        size: this.#o.poolSize,
        recycleAfter: this.#o.recycleAfter,
        timeoutMs: this.#o.timeoutMs,
        create: () => TesseractJsWorker.create(languages, this.#o.timeoutMs),
        // Leptonica refuses undecodable bytes before tesseract runs: the worker stays usable, and a
        // stream of garbage uploads does not cost a worker start each.
        keepsWorker: (error) => error instanceof UnreadableImageError,
        log: this.#o.log,
      });
    }
    this.#pools.delete(key);
    this.#pools.set(key, pool);
    this.#evict(key);
    return pool;
  }

  async close(): Promise<void> {
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  /** Closes idle pools, oldest first, until at most MAX_POOLS remain; `inUse` is about to get a job. */
  #evict(inUse: string): void {
    for (const [key, pool] of this.#pools) {
      if (this.#pools.size <= MAX_POOLS) return;
      if (key === inUse || pool.active > 0) continue;
      this.#pools.delete(key);
      this.#o.log.info('OCR worker pool closed (least recently used)', { languages: key });
      void pool.close();
    }
  }
}
