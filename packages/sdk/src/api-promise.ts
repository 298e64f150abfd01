// What every client method returns (issue #20, as openai-node's APIPromise): a Promise of the parsed
// result that also offers `withResponse()`, the same call's result beside the raw fetch Response
// (status, headers). One request either way: both read the same underlying promise.

export interface WithResponse<T> {
  data: T;
  /** The fetch Response the result was read from: `status`, `headers`... Its body has been read. */
  response: Response;
}

export class ApiPromise<T> extends Promise<T> {
  readonly #raw: Promise<WithResponse<T>>;
  #data: Promise<T> | undefined;

  // `then` on a subclass builds its result through Symbol.species: plain Promises, not ApiPromises
  // (which would need a `raw` to be constructed).
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  constructor(raw: Promise<WithResponse<T>>) {
    // The settled value of `this` is never used: then/catch/finally read `raw`.
    super((resolve) => resolve(undefined as T));
    this.#raw = raw;
  }

  /** The result and the Response it came from: `const { data, response } = await pdn.compress(...).withResponse()`. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#raw;
  }

  // Made on first use, so a caller who only asks withResponse() leaves no second, unhandled rejection.
  #parsed(): Promise<T> {
    this.#data ??= this.#raw.then((result) => result.data);
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
