// Summaries of repeated measurements. Medians and spreads rather than means: these machines are
// shared and noisy (brief, ground rule 4), so one slow outlier must not move a figure.

export interface Summary {
  median: number;
  /** Half the distance between the 25th and 75th percentiles, relative to the median (0.05 = ±5%). */
  spread: number;
  runs: number;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const lowValue = sorted[low] as number;
  const highValue = sorted[high] as number;
  return lowValue + (highValue - lowValue) * (rank - low);
}

export function summarize(values: readonly number[]): Summary {
  const median = percentile(values, 50);
  const iqr = percentile(values, 75) - percentile(values, 25);
  return { median, spread: median === 0 ? 0 : iqr / 2 / median, runs: values.length };
}

/** Runs `task` `runs` times (after `warmup` unmeasured runs) and returns the wall times in ms. */
export async function timeRuns(runs: number, task: () => Promise<unknown>, warmup = 1): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await task();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await task();
    times.push(performance.now() - start);
  }
  return times;
}

async function timed(task: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}

/**
 * Times `task` and its `baseline` in alternation, `runs` times each (after `warmup` unmeasured runs of
 * each), in ms. The load of a shared machine drifts within seconds: a ratio of two series timed one
 * after the other measures that drift too (a merge once came out at 0.68 of the qpdf CLI, whose five
 * runs had met a load spike); alternating exposes both to the same load.
 */
export async function timeAlternating(
  runs: number,
  task: () => Promise<unknown>,
  baseline: () => Promise<unknown>,
  warmup = 1,
): Promise<{ task: number[]; baseline: number[] }> {
  const [taskTimes = [], baselineTimes = []] = await timeInTurns(runs, [task, baseline], warmup);
  return { task: taskTimes, baseline: baselineTimes };
}

/** As timeAlternating, for any number of tasks: each runs once per round, in turn; their times in order. */
export async function timeInTurns(
  runs: number,
  tasks: readonly (() => Promise<unknown>)[],
  warmup = 1,
): Promise<number[][]> {
  for (let i = 0; i < warmup; i++) for (const task of tasks) await task();
  const times = tasks.map((): number[] => []);
  for (let i = 0; i < runs; i++) {
    for (const [index, task] of tasks.entries()) times[index]?.push(await timed(task));
  }
  return times;
}
