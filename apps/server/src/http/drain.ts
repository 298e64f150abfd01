// Shutting down without dropping work (issue #11, item 9: SIGTERM cut in-flight requests after a 5 s
// drain, with a dropped connection). main.ts stops listening and calls `begin()`; requests already
// in flight run on for the grace period; `cutOff()` then answers those still running with `503
// service_unavailable` and stops their tools. Requests arriving meanwhile on connections that were
// already open get the same 503 at once. Every answer given while draining closes its connection.
// (Issue #18 later turns readiness false first and leaves asynchronous jobs queued.)
import { setMaxListeners } from 'node:events';
import type { Middleware } from 'koa';
import { ServiceUnavailableError } from '../errors.js';
import type { AppState } from './state.js';

/** Listeners a request's engines may hold on its signal at once (a merge's 20 tool runs + margin). */
const ENGINE_LISTENERS = 32;

export class Drain {
  #draining = false;
  /** Requests whose answers have not gone out yet, each with what stops it. */
  readonly #inFlight = new Set<AbortController>();
  #idle: (() => void) | undefined;

  get draining(): boolean {
    return this.#draining;
  }

  /** From now on every request is refused and every answer closes its connection. */
  begin(): void {
    this.#draining = true;
  }

  /** Resolves once no answer is outstanding. */
  idle(): Promise<void> {
    if (this.#inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#idle = resolve;
    });
  }

  /** Answers every request still running with 503 and aborts its signal (its tools are killed). */
  cutOff(): void {
    const error = new ServiceUnavailableError(
      'The server is shutting down and could not finish this request in time. Send it again.',
    );
    for (const controller of this.#inFlight) controller.abort(error);
  }

  /**
   * Tracks each request until its answer has gone out, refuses new ones while draining, and gives
   * routes `ctx.state.shutdown`, the signal `cutOff()` aborts.
   */
  middleware(): Middleware<AppState> {
    return async (ctx, next) => {
      if (this.#draining) {
        ctx.set('Connection', 'close');
        throw new ServiceUnavailableError(
          'The server is shutting down and takes no new requests. Send this one again.',
        );
      }
      const controller = new AbortController();
      setMaxListeners(ENGINE_LISTENERS, controller.signal);
      this.#inFlight.add(controller);
      ctx.res.once('close', () => {
        this.#inFlight.delete(controller);
        if (this.#inFlight.size === 0) this.#idle?.();
      });
      ctx.state.shutdown = controller.signal;
      const cutOff = new Promise<never>((_resolve, reject) => {
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
      });
      const work = next();
      // The work goes on after a cut-off until its killed tools return; nobody awaits it then.
      work.catch(() => {});
      cutOff.catch(() => {});
      try {
        await Promise.race([work, cutOff]);
      } finally {
        if (this.#draining) ctx.set('Connection', 'close');
      }
    };
  }
}
