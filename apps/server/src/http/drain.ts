// Shutting down without dropping work (SIGTERM cut in-flight requests after a 5 s
// drain, with a dropped connection). main.ts first calls `announce()`: readiness is false, so a load
// balancer stops sending traffic, while requests are still served for the drain delay it needs to
// notice (PDN_DRAIN_DELAY_MS). Then it stops listening and calls `begin()`; requests already
// in flight run on for the grace period; `cutOff()` then answers those still running with `503
// service_unavailable` and stops their tools. Requests arriving meanwhile on connections that were
// already open get the same 503 at once. Every answer given from `announce()` on closes its connection,
// so kept-alive clients come back on a new one, which the balancer sends elsewhere. GET /readyz
// answers 503 from `announce()` on (routes/ready.ts), and after `begin()` is refused like any request,
// also on a connection whose request began before the signal. Asynchronous jobs are the runner's: queued ones
// stay queued, and a running one goes back to the queue, for the next process.
import { setMaxListeners } from 'node:events';
import type { Middleware } from 'koa';
import { ServiceUnavailableError } from '../errors.js';
import type { Role } from '../role.js';
import type { AppState } from './state.js';

/** Listeners a request's engines may hold on its signal at once (a merge's 20 tool runs + margin). */
const ENGINE_LISTENERS = 32;

/**
 * The drain delay when PDN_DRAIN_DELAY_MS is unset: an `api` process is one of several behind a
 * balancer, whose health checks (Kubernetes' endpoints, a few seconds apart) need a moment to see it
 * unready; an `all` process is the only one of its deployment (SQLite, one data folder), so there is
 * nowhere else to send its traffic and waiting would only slow its stop.
 */
export const DEFAULT_DRAIN_DELAY_MS: Readonly<Record<Role, number>> = { all: 0, api: 5_000, worker: 0 };

export class Drain {
  #announced = false;
  #draining = false;
  /** Requests whose answers have not gone out yet, each with what stops it. */
  readonly #inFlight = new Set<AbortController>();
  #idle: (() => void) | undefined;

  /** Readiness is false: the server is about to stop. */
  get announced(): boolean {
    return this.#announced;
  }

  /** From now on readiness is false and every answer closes its connection; requests are still served. */
  announce(): void {
    this.#announced = true;
  }

  /** From now on every request is refused and every answer closes its connection. */
  begin(): void {
    this.#announced = true;
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
      { refusal: true },
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
          { refusal: true },
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
        if (this.#announced) ctx.set('Connection', 'close');
      }
    };
  }
}
