// Password hashing on threads of its own (worker_threads running scrypt-worker.ts), one hash per thread
// at a time. scrypt from node:crypto runs on libuv's thread pool, four threads by default that every
// file operation of the API also waits on (upload writes, work folders, downloads): 200 sign-ins at
// once kept a 2-page merge waiting for over a minute. Here hashing cannot take more than its threads,
// and hash-places.ts decides who gets them. A thread starts at the first hash and is replaced if it
// dies; close() ends them all.
//
// Node 20 cannot run a TypeScript worker, so the worker is always the compiled dist/ file (as for
// pdf-lib, engines/pdf/run-pdf-lib-task.ts): the URL resolves the same from src/accounts/ (vitest, after
// a build) and dist/accounts/ (the server).
import { Worker } from 'node:worker_threads';

export const SCRYPT_WORKER_URL = new URL('../../dist/accounts/scrypt-worker.js', import.meta.url);

export interface ScryptRequest {
  password: string;
  salt: Uint8Array;
  keyLength: number;
  cost: number;
  blockSize: number;
  parallelism: number;
}

export type ScryptReply = { ok: true; key: Uint8Array } | { ok: false; message: string };

interface Thread {
  worker: Worker;
  alive: boolean;
  /** Settles the hash this thread is running. */
  current?: ((reply: ScryptReply) => void) | undefined;
}

interface Waiting {
  request: ScryptRequest;
  settle(reply: ScryptReply): void;
}

export class ScryptThreads {
  readonly #threads = new Set<Thread>();
  readonly #idle: Thread[] = [];
  /** Requests beyond the threads, in order. hash-places.ts keeps the server's from queueing here. */
  readonly #waiting: Waiting[] = [];
  #closed = false;

  constructor(readonly size: number) {}

  /** Derives one key on a free thread, or on the first to be free. */
  derive(request: ScryptRequest): Promise<Buffer> {
    if (this.#closed) return Promise.reject(new Error('password hashing has stopped'));
    return new Promise((resolve, reject) => {
      const settle = (reply: ScryptReply) => {
        if (reply.ok) resolve(Buffer.from(reply.key));
        else reject(new Error(`scrypt failed: ${reply.message}`));
      };
      const thread = this.#idle.pop() ?? (this.#threads.size < this.size ? this.#start() : undefined);
      if (thread) this.#run(thread, { request, settle });
      else this.#waiting.push({ request, settle });
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#idle.length = 0;
    for (const waiting of this.#waiting.splice(0))
      waiting.settle({ ok: false, message: 'password hashing has stopped' });
    await Promise.all([...this.#threads].map(({ worker }) => worker.terminate()));
  }

  #run(thread: Thread, { request, settle }: Waiting): void {
    thread.current = (reply) => {
      thread.current = undefined;
      settle(reply);
      if (!thread.alive || this.#closed) return;
      const next = this.#waiting.shift();
      if (next) this.#run(thread, next);
      else this.#idle.push(thread);
    };
    thread.worker.postMessage(request);
  }

  #start(): Thread {
    const worker = new Worker(SCRYPT_WORKER_URL);
    const thread: Thread = { worker, alive: true };
    this.#threads.add(thread);
    worker.on('message', (reply: ScryptReply) => thread.current?.(reply));
    worker.on('error', (error) => thread.current?.({ ok: false, message: error.message }));
    worker.on('exit', (code) => {
      // A thread that ended is not reused: its hash fails, and a new thread takes the next one.
      thread.alive = false;
      this.#threads.delete(thread);
      const index = this.#idle.indexOf(thread);
      if (index >= 0) this.#idle.splice(index, 1);
      thread.current?.({ ok: false, message: `hashing thread exited with code ${code}` });
      const next = this.#closed ? undefined : this.#waiting.shift();
      if (next) this.#run(this.#start(), next);
    });
    return thread;
  }
}
