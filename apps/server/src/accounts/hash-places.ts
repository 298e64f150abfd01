// Who may hash a password now (password-hasher.ts): a bounded number of places, each held from the
// request's arrival to the end of its hash, of which `running` hash at once and the rest wait. One
// client address (client-address.ts: an IPv6 client by its /64) holds at most `perAddress` of them,
// so one address cannot take them all, and waiting places get their turn round-robin between
// addresses (the address served least recently goes next), not in arrival order (STYLE.md 27). A
// request that finds no place is refused at once, before any hashing; one whose client goes away
// while it waits leaves without hashing. A hash that has started runs to its end: scrypt cannot be
// interrupted, and it is short.

export interface PlaceLimits {
  /** Hashes running at once (the hashing threads). */
  running: number;
  /** Places in all, running or waiting. */
  places: number;
  /** Places one address may hold. */
  perAddress: number;
}

/** `address`: the client's address holds its share; `full`: every place is taken. */
export type RefusalReason = 'address' | 'full';

export class NoHashPlaceError extends Error {
  constructor(readonly reason: RefusalReason) {
    super(
      reason === 'address'
        ? 'this address holds its share of hashing places'
        : 'every hashing place is taken',
    );
    this.name = 'NoHashPlaceError';
  }
}

/** The client went away before its turn: nothing was hashed. */
export class HashAbandonedError extends Error {
  constructor() {
    super('the client went away before its password was hashed');
    this.name = 'HashAbandonedError';
  }
}

interface Waiter {
  start(): void;
}

export class HashPlaces {
  #taken = 0;
  #running = 0;
  readonly #byAddress = new Map<string, number>();
  readonly #waiting = new Map<string, Waiter[]>();
  /** When each address holding a place last started a hash (a count, not a time): the least recent goes next. */
  readonly #lastStarted = new Map<string, number>();
  #starts = 0;

  constructor(readonly limits: PlaceLimits) {}

  /** Places held now, running or waiting. */
  get taken(): number {
    return this.#taken;
  }

  /** Why a request from `address` would find no place now; undefined when it would find one. */
  refusal(address: string): RefusalReason | undefined {
    if ((this.#byAddress.get(address) ?? 0) >= this.limits.perAddress) return 'address';
    if (this.#taken >= this.limits.places) return 'full';
    return undefined;
  }

  /**
   * Runs `work` in a place of `address`'s, when its turn comes. Rejects at once with NoHashPlaceError
   * when there is no place for it, and with HashAbandonedError when `signal` aborts before its turn.
   */
  async run<T>(address: string, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
    if (signal?.aborted) throw new HashAbandonedError();
    const refusal = this.refusal(address);
    if (refusal) throw new NoHashPlaceError(refusal);
    this.#taken += 1;
    this.#byAddress.set(address, (this.#byAddress.get(address) ?? 0) + 1);
    try {
      await this.#turn(address, signal);
      try {
        return await work();
      } finally {
        this.#running -= 1;
        this.#next();
      }
    } finally {
      this.#taken -= 1;
      const left = (this.#byAddress.get(address) ?? 1) - 1;
      if (left > 0) this.#byAddress.set(address, left);
      else {
        this.#byAddress.delete(address);
        this.#lastStarted.delete(address);
      }
    }
  }

  #turn(address: string, signal: AbortSignal | undefined): Promise<void> {
    if (this.#running < this.limits.running && this.#waiting.size === 0) {
      this.#start(address);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const queue = this.#waiting.get(address) ?? [];
        const index = queue.indexOf(waiter);
        if (index >= 0) queue.splice(index, 1);
        if (queue.length === 0) this.#waiting.delete(address);
        reject(new HashAbandonedError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.#waiting.get(address);
      if (queue) queue.push(waiter);
      else this.#waiting.set(address, [waiter]);
    });
  }

  #start(address: string): void {
    this.#running += 1;
    this.#starts += 1;
    this.#lastStarted.set(address, this.#starts);
  }

  /** Starts waiters while hashes may run, each time from the waiting address served least recently. */
  #next(): void {
    while (this.#running < this.limits.running && this.#waiting.size > 0) {
      let chosen: string | undefined;
      for (const address of this.#waiting.keys())
        if (
          chosen === undefined ||
          (this.#lastStarted.get(address) ?? 0) < (this.#lastStarted.get(chosen) ?? 0)
        )
          chosen = address;
      if (chosen === undefined) return;
      const queue = this.#waiting.get(chosen) ?? [];
      const waiter = queue.shift();
      if (queue.length === 0) this.#waiting.delete(chosen);
      if (!waiter) continue;
      this.#start(chosen);
      waiter.start();
    }
  }
}
