// What every client method returns (as openai-node's APIPromise): a Promise of the parsed result that
// also offers `withResponse()`, the same call's result beside the raw fetch Response (status,
// headers), and `asResponse()`, the raw Response alone with its body not read, for a caller who reads
// it their own way. The call is sent at once either way: `asResponse()` chained on the call itself
// (`pdn.compress(p).asResponse()`, in the same tick) decides that the body is left unread.

import { InvalidInputError } from './errors.js';

export interface WithResponse<T> {
  data: T;
  /** The fetch Response the result was read from: `status`, `headers`... Its body has been read. */
  response: Response;
}

/**
 * How an ApiPromise makes its call: `parsed` reads the answer into the result; `unread`, offered where
 * the call is one request, hands over the Response once its status is known, the body not read.
 */
export interface CallMaker<T> {
  parsed(): Promise<WithResponse<T>>;
  unread?(): Promise<Response>;
}

export class ApiPromise<T> extends Promise<T> {
  readonly #make: CallMaker<T>;
  #raw: Promise<WithResponse<T>> | undefined;
  #unread: Promise<Response> | undefined;
  #data: Promise<T> | undefined;

  // `then` on a subclass builds its result through Symbol.species: plain Promises, not ApiPromises
  // (which would need a maker to be constructed).
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  /** A maker, or the parsed call already under way (a call of several requests, such as a job's wait). */
  constructor(make: CallMaker<T> | Promise<WithResponse<T>>) {
    // The settled value of `this` is never used: then/catch/finally read the call.
    super((resolve) => resolve(undefined as T));
    if (make instanceof Promise) {
      this.#raw = make;
      this.#make = { parsed: () => make };
    } else {
      this.#make = make;
      // Sent at once, as a Promise's work starts at once, unless asResponse() comes first.
      queueMicrotask(() => {
        if (this.#unread === undefined) this.#begin();
      });
    }
  }

  /** The result and the Response it came from: `const { data, response } = await pdn.compress(...).withResponse()`. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#begin();
  }

  /**
   * The raw Response, its body not read: `const response = await pdn.downloadStream(d).asResponse()`.
   * Error answers still reject with the typed errors, after the usual retries. Called on a call already
   * parsed (after `await` or `withResponse()`), it gives that call's Response, whose body has been read.
   */
  asResponse(): Promise<Response> {
    if (this.#raw !== undefined || this.#make.unread === undefined)
      return this.#begin().then((result) => result.response);
    this.#unread ??= this.#make.unread();
    return this.#unread;
  }

  #begin(): Promise<WithResponse<T>> {
    if (this.#raw === undefined) {
      this.#raw =
        this.#unread === undefined
          ? this.#make.parsed()
          : Promise.reject(
              new InvalidInputError(
                'asResponse() took this call with its body unread: read the result from that Response',
              ),
            );
    }
    return this.#raw;
  }

  // Made on first use, so a caller who only asks withResponse() leaves no second, unhandled rejection.
  #parsed(): Promise<T> {
    this.#data ??= this.#begin().then((result) => result.data);
    return this.#data;
  }

  // biome-ignore lint/suspicious/noThenProperty: a Promise subclass; `then` is what await must call.
  override then<A = T, B = never>(
    onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#parsed().then(onFulfilled, onRejected);
  }

  override catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.#parsed().catch(onRejected);
  }

  override finally(onFinally?: (() => void) | null): Promise<T> {
    return this.#parsed().finally(onFinally);
  }
}
