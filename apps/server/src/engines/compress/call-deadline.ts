// How long one compress may take once its input has passed inspection. Ghostscript's rewrites, the
// ladder's costly and unpredictable part, share the first `timeoutMs` (PDN_TOOL_TIMEOUT_MS) between
// them; the whole call, with qpdf's lossless rewrite and the checks after them, ends at twice that.
// A rewrite cut by its share is one candidate fewer: the ladder goes on to qpdf's rewrite and, at
// worst, the original. The call cut at its end answers the original at once. A timeout is the file's
// cost, not a fault: answered 500 ("safe to retry"), the same file would time out forever, while
// its original, or qpdf's rewrite, was at hand. Both cuts are abort signals, which the tools obey by
// killing their processes, so nothing runs on after the answer.
//
// The timers are this object's own, cleared by dispose(): on Node 20 a signal of
// AbortSignal.timeout() that only AbortSignal.any() holds can be garbage-collected with its timer,
// and then never fires.

export class CallDeadline {
  /** Aborts when the client goes away or the call's time is up: for every tool of the call. */
  readonly call: AbortSignal;
  /** Aborts as `call` does, or when the rewrites' share is spent: for Ghostscript's rewrites. */
  readonly rewrites: AbortSignal;
  readonly rewritesMs: number;
  readonly #client: AbortSignal;
  readonly #callEnd = new AbortController();
  readonly #rewritesEnd = new AbortController();
  readonly #timers: NodeJS.Timeout[];

  constructor(client: AbortSignal, timeoutMs: number) {
    this.#client = client;
    this.rewritesMs = timeoutMs;
    this.call = AbortSignal.any([client, this.#callEnd.signal]);
    this.rewrites = AbortSignal.any([this.call, this.#rewritesEnd.signal]);
    // Unref'd: a call that failed before dispose() holds no process open.
    this.#timers = [
      setTimeout(() => this.#callEnd.abort(), 2 * timeoutMs).unref(),
      setTimeout(() => this.#rewritesEnd.abort(), timeoutMs).unref(),
    ];
  }

  /** Whether the rewrites' share ran out while the call goes on. */
  get rewritesCut(): boolean {
    return this.rewrites.aborted && !this.call.aborted;
  }

  /** Whether the call's own time ran out (not the client's going away). */
  get callCut(): boolean {
    return this.call.aborted && !this.#client.aborted;
  }

  /** The call has its answer: no timer of it stays behind. */
  dispose(): void {
    for (const timer of this.#timers) clearTimeout(timer);
  }
}
