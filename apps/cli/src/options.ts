// Parsers for numeric flags. Commander reports an InvalidArgumentError as a usage error (exit 2).
import { InvalidArgumentError } from 'commander';

/** `--concurrency`: batch parallelism, at least 1 (issue #5: default 4). */
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
