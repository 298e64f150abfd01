// Parsers for flags, and options several commands share. Commander reports an InvalidArgumentError as a
// usage error (exit 2); a UsageError thrown when a command runs exits 2 too.
import { InvalidArgumentError, Option } from 'commander';
import { UsageError } from './errors.js';

/** `--concurrency`: batch parallelism, at least 1 (default 4). */
export function parsePositiveInt(value: string): number {
  const n = parseWholeNumber(value);
  if (n < 1) throw new InvalidArgumentError('must be a whole number of at least 1');
  return n;
}

/** `--max-retries`: 0 turns retries off. */
export function parseNonNegativeInt(value: string): number {
  return parseWholeNumber(value);
}

function parseWholeNumber(value: string): number {
  // Number('') is 0 and Number('1e3') is 1000: accept digits only.
  if (!/^\d{1,6}$/.test(value.trim())) throw new InvalidArgumentError('must be a whole number');
  return Number(value.trim());
}

/**
 * `--skip-existing`: a re-run after a stopped batch does only what is left, rather than
 * failing on every output the last run wrote. The opposite of --force, so not with it.
 */
export function skipExistingOption(): Option {
  return new Option('--skip-existing', 'leave out inputs whose output file already exists').conflicts(
    'force',
  );
}

/**
 * `--async`: submit each input as a job and print the job ids, collecting nothing;
 * `pdn jobs wait` collects them. There is then no output to name or replace.
 */
export function asyncOption(): Option {
  return new Option(
    '--async',
    'submit the work as jobs and print their ids; collect with `pdn jobs wait`',
  ).conflicts(['output', 'force', 'resume']);
}

/**
 * `--resume`: collect the jobs an interrupted run of the same command submitted (its
 * run-state file) instead of submitting those inputs again.
 */
export function resumeOption(): Option {
  return new Option(
    '--resume',
    'collect the jobs of an interrupted run of this command instead of submitting again',
  );
}

/** `--margin`: a number of millimetres; the SDK judges its range. */
export function marginOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value))
    throw new UsageError(`--margin takes millimetres, e.g. 10; got "${raw}"`);
  return value;
}
