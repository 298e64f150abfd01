// How the error middleware logs refusals by design: `503 server_busy` (the call would wait too long
// for a slot, or its user has as many calls in progress as the plan allows) and `503
// service_unavailable` while the server stops. They are the server working as documented, not
// faults, and any client can cause them at will, so a line each at `error` would let one client fill
// the error log and bury real faults. The first refusal of a code is logged at `warn` with its
// request's fields; the others within the next minute are counted, and one `warn` line at the end of
// that minute says how many there were. Each request's own line (request-id.ts) still records its
// status.
import type { LogFields, Logger } from '../logger.js';

/** How long the refusals after a logged one are counted before one line sums them up. */
export const SUMMARY_WINDOW_MS = 60_000;

export class RefusalLog {
  readonly #log: Logger;
  /** Per code with a window open: the refusals counted since the one logged. */
  readonly #counted = new Map<string, number>();

  constructor(log: Logger) {
    this.#log = log;
  }

  note(code: string, fields: LogFields): void {
    const counted = this.#counted.get(code);
    if (counted !== undefined) {
      this.#counted.set(code, counted + 1);
      return;
    }
    this.#log.warn('call refused', { code, ...fields });
    this.#counted.set(code, 0);
    setTimeout(() => this.#summarise(code), SUMMARY_WINDOW_MS).unref();
  }

  #summarise(code: string): void {
    const counted = this.#counted.get(code) ?? 0;
    this.#counted.delete(code);
    if (counted > 0)
      this.#log.warn('calls refused', { code, count: counted, seconds: SUMMARY_WINDOW_MS / 1000 });
  }
}
