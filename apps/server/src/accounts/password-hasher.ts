// The server's password hashing: passwords.ts's scrypt on threads of its own (scrypt-threads.ts), in
// the fair, bounded places of hash-places.ts, counted for /metrics. Sized from the machine: half its
// cores hash (at least one), so hashing never takes every core from the API; eight places per thread
// (a wait of a few hashes at most); a quarter of them, at least two, per client address.
import { availableParallelism } from 'node:os';
import {
  passwordHashes,
  passwordHashesInFlight,
  passwordHashesInFlightMax,
  passwordHashPlaces,
  passwordHashRefusals,
} from '../metrics.js';
import {
  HashAbandonedError,
  HashPlaces,
  NoHashPlaceError,
  type PlaceLimits,
  type RefusalReason,
} from './hash-places.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { ScryptThreads } from './scrypt-threads.js';

/** Who asks for a hash: the client's address key (client-address.ts), and its request's abort. */
export interface HashingClient {
  address: string;
  /** Aborts when the client goes away: a hash still waiting for its turn is then never run. */
  signal?: AbortSignal;
}

export function placeLimitsFor(cores: number): PlaceLimits {
  const running = Math.max(1, Math.floor(cores / 2));
  const places = running * 8;
  return { running, places, perAddress: Math.max(2, Math.floor(places / 4)) };
}

/** Where no hash has been timed yet: about the 2-core CI machine's. */
const FIRST_GUESS_MS = 300;

export class PasswordHasher {
  readonly #threads: ScryptThreads;
  readonly #places: HashPlaces;
  #meanMs = FIRST_GUESS_MS;
  #peak = 0;

  constructor(readonly limits: PlaceLimits = placeLimitsFor(availableParallelism())) {
    this.#threads = new ScryptThreads(limits.running);
    this.#places = new HashPlaces(limits);
    passwordHashPlaces.set({ kind: 'running' }, limits.running);
    passwordHashPlaces.set({ kind: 'total' }, limits.places);
    passwordHashPlaces.set({ kind: 'per_address' }, limits.perAddress);
  }

  /** A new password's stored form. Rejects with NoHashPlaceError or HashAbandonedError, unhashed. */
  hash(password: string, client: HashingClient): Promise<string> {
    return this.#run(client, () => hashPassword(password, this.#derive));
  }

  /** Whether `password` matches `stored`. Rejects with NoHashPlaceError or HashAbandonedError, unchecked. */
  verify(password: string, stored: string, client: HashingClient): Promise<boolean> {
    return this.#run(client, () => verifyPassword(password, stored, this.#derive));
  }

  /**
   * Why a request from `address` would be refused a place now, counted as a refusal; undefined when it
   * would find one. Asked before a request's other work (its database look-ups and writes), so that a
   * flood the hasher must turn away anyway costs the server next to nothing. The place is taken only
   * by hash() or verify(), which refuse again if it has gone meanwhile.
   */
  refusalFor(address: string): RefusalReason | undefined {
    const reason = this.#places.refusal(address);
    if (reason !== undefined) passwordHashRefusals.inc({ reason });
    return reason;
  }

  /** Seconds after which a refused request may find a place: the hashes ahead of it, roughly. */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.#places.taken * this.#meanMs) / this.limits.running / 1000));
  }

  close(): Promise<void> {
    return this.#threads.close();
  }

  readonly #derive = async (request: Parameters<ScryptThreads['derive']>[0]) => {
    const started = performance.now();
    const key = await this.#threads.derive(request);
    passwordHashes.inc();
    this.#meanMs = 0.8 * this.#meanMs + 0.2 * (performance.now() - started);
    return key;
  };

  async #run<T>(client: HashingClient, work: () => Promise<T>): Promise<T> {
    const running = this.#places.run(client.address, client.signal, work);
    passwordHashesInFlight.set(this.#places.taken);
    if (this.#places.taken > this.#peak) {
      this.#peak = this.#places.taken;
      passwordHashesInFlightMax.set(this.#peak);
    }
    try {
      return await running;
    } catch (error) {
      if (error instanceof NoHashPlaceError) passwordHashRefusals.inc({ reason: error.reason });
      if (error instanceof HashAbandonedError) passwordHashRefusals.inc({ reason: 'gone' });
      throw error;
    } finally {
      passwordHashesInFlight.set(this.#places.taken);
    }
  }
}
