// Where a compression's time goes: inspection, Ghostscript, qpdf and the content check (the bench adds HTTP).
// The engine logs these with each answer; the bench reads them back from the log, so the check's cost is a
// measured figure rather than a guess.

export type Phase = 'inspect' | 'ghostscript' | 'qpdf' | 'check';

export class PhaseTimer {
  readonly #ms: Record<Phase, number> = { inspect: 0, ghostscript: 0, qpdf: 0, check: 0 };

  /** Runs `work`, adding its wall-clock time to `phase` (phases run one after another, never overlap). */
  async time<T>(phase: Phase, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.#ms[phase] += performance.now() - started;
    }
  }

  /** Whole milliseconds per phase, as log fields: `inspect_ms`, `ghostscript_ms`, ... */
  fields(): Record<`${Phase}_ms`, number> {
    const ms = this.#ms;
    return {
      inspect_ms: Math.round(ms.inspect),
      ghostscript_ms: Math.round(ms.ghostscript),
      qpdf_ms: Math.round(ms.qpdf),
      check_ms: Math.round(ms.check),
    };
  }
}
