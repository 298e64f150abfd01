// What the tools a job runs report to it, found without threading it through every engine: the job
// runner binds a report around an operation, and runTool writes each tool's exit, time and stderr to
// its log at debug level, so tools' diagnostics reach the operator with the request id and are never
// printed raw, and adds each run's time to the job's timings, which the job's log line carries
// (engine and tool timings on the request line).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '../logger.js';

/** A tool's runs in one job: how many, and their wall-clock time summed (runs may overlap). */
export interface ToolTime {
  runs: number;
  ms: number;
}

export class ToolReport {
  readonly #times = new Map<string, ToolTime>();

  constructor(readonly log: Logger) {}

  ran(tool: string, ms: number): void {
    const time = this.#times.get(tool) ?? { runs: 0, ms: 0 };
    this.#times.set(tool, { runs: time.runs + 1, ms: time.ms + ms });
  }

  /** Each tool run so far by name, its time in whole milliseconds: `{ qpdf: { runs: 2, ms: 41 } }`. */
  times(): Record<string, ToolTime> {
    return Object.fromEntries(
      [...this.#times].map(([tool, { runs, ms }]) => [tool, { runs, ms: Math.round(ms) }]),
    );
  }
}

const current = new AsyncLocalStorage<ToolReport>();

/** Runs `work` with `report` as the report of every tool it runs. */
export function withToolReport<T>(report: ToolReport, work: () => Promise<T>): Promise<T> {
  return current.run(report, work);
}

/** The report bound by the job running now; none outside a job (start-up probes). */
export function toolReport(): ToolReport | undefined {
  return current.getStore();
}
