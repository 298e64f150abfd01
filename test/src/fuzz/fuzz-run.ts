// The fuzz targets' time budget and replay: each target throws generated
// inputs at the running server for PDN_FUZZ_SECONDS (a fraction of a minute in CI, as long as you like
// on demand), from the seed PDN_FUZZ_SEED or a fresh one, always printed. A failure is shrunk and
// printed with the line that replays exactly that case (fast-check's seed and path).
import fc from 'fast-check';

/** Seconds each target runs by default: six targets plus their servers come to about 85 s on 2 cores. */
const DEFAULT_SECONDS = 10;
/** Shrinking gets its own time once a failure is found, so a late failure is still made small. */
const SHRINK_SECONDS = 90;

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number; got "${raw}"`);
  return value;
}

export interface FuzzBudget {
  seconds: number;
  seed: number;
  /** A case to replay alone (fast-check's counterexample path), from PDN_FUZZ_PATH. */
  path: string | undefined;
}

export function fuzzBudget(): FuzzBudget {
  const seed = process.env.PDN_FUZZ_SEED;
  return {
    seconds: positiveNumber('PDN_FUZZ_SECONDS', DEFAULT_SECONDS),
    seed: seed === undefined || seed === '' ? Date.now() % 2 ** 31 : Math.trunc(Number(seed)),
    path: process.env.PDN_FUZZ_PATH || undefined,
  };
}

/** A vitest timeout for a fuzz test: its budget, the shrinking allowance, and a margin for the last run. */
export function fuzzTimeoutMs(): number {
  return (fuzzBudget().seconds + SHRINK_SECONDS + 120) * 1000;
}

export interface FuzzReport {
  runs: number;
  seconds: number;
}

/**
 * Checks `predicate` on values of `arbitrary` until the budget is spent, then throws with the shrunk
 * counterexample and its replay line if any run failed. `target` names the test file, for that line.
 * A run is never cut in the middle: the request in flight is awaited, so the server's clean-up can be
 * judged afterwards.
 */
export async function fuzz<T>(
  target: string,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
): Promise<FuzzReport> {
  const budget = fuzzBudget();
  console.info(`[fuzz] ${target}: seed ${budget.seed}, ${budget.seconds} s (PDN_FUZZ_SEED=${budget.seed})`);
  // The run the budget interrupted keeps going (fast-check cannot stop a promise); its outcome is
  // awaited and still counts.
  let inFlight: Promise<{ value: T; error?: unknown }> = Promise.resolve({ value: undefined as T });
  const property = fc.asyncProperty(arbitrary, (value) => {
    const run = predicate(value);
    inFlight = run.then(
      () => ({ value }),
      (error: unknown) => ({ value, error: error ?? 'rejected' }),
    );
    return run;
  });
  const started = Date.now();
  const check = async (options: fc.Parameters<[T]>) => {
    const checked = await fc.check(property, { numRuns: 2 ** 30, markInterruptAsFailure: false, ...options });
    const last = await inFlight;
    // fast-check counts a budget that ran out before any run ended as a failure, whatever the option
    // says (a first run of a hundred split parts took longer than 10 s on a busy machine): the run it
    // interrupted decides instead, as later ones do.
    const noneEnded = checked.failed && checked.interrupted && checked.counterexample === null;
    const details = noneEnded ? { ...checked, failed: false, numRuns: 1 } : checked;
    if (!details.failed && 'error' in last) {
      // Failed after the budget ran out: not shrunk, and replayed by the seed alone (the same
      // values come in the same order) with a budget long enough to reach it.
      const error = last.error;
      throw new Error(
        `fuzz ${target} failed in its last run, interrupted by the budget, after ${details.numRuns} runs.\n` +
          `Counterexample: ${fc.stringify(last.value)}\n` +
          `Replay: PDN_FUZZ_SEED=${details.seed} PDN_FUZZ_SECONDS=${budget.seconds * 2} npx vitest run ${target}\n` +
          `${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    return details;
  };
  let details = await check({
    seed: budget.seed,
    ...(budget.path === undefined ? {} : { path: budget.path }),
    interruptAfterTimeLimit: budget.seconds * 1000,
  });
  if (details.failed && details.interrupted && details.counterexamplePath !== null) {
    // The budget ran out while shrinking: carry on from the smallest failure found so far. Should
    // that failure not happen again (a flaky one), it is still the one reported.
    const shrunk = await check({
      seed: details.seed,
      path: details.counterexamplePath,
      interruptAfterTimeLimit: SHRINK_SECONDS * 1000,
    });
    if (shrunk.failed) details = shrunk;
  }
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  console.info(`[fuzz] ${target}: ${details.numRuns} runs in ${seconds} s`);
  if (details.failed) {
    const replay = `PDN_FUZZ_SEED=${details.seed} PDN_FUZZ_PATH=${details.counterexamplePath} npx vitest run ${target}`;
    const error = details.errorInstance;
    throw new Error(
      `fuzz ${target} failed after ${details.numRuns} runs (${details.numShrinks} shrinks).\n` +
        `Counterexample: ${fc.stringify(details.counterexample?.[0])}\n` +
        `Replay: ${replay}\n` +
        `${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return { runs: details.numRuns, seconds };
}
