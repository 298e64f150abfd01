// Values as a person reads them in human output (never in --json, which keeps raw values).
import type { Job, RateLimitInfo } from '@pdn/sdk';
import { STDIO } from './output-naming.js';
import type { ItemReport, OutputReport } from './report.js';
import { describeWhen } from './when.js';

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${value.toFixed(digits)} ${UNITS[unit]}`;
}

/** `1 page`, `3 pages`. */
export function pages(count: number): string {
  return `${count} ${count === 1 ? 'page' : 'pages'}`;
}

/**
 * Saving of `after` against `before` as `-33.3%`; `0%` when nothing was saved, also when the saving
 * rounds to nothing, never `-0.0%`.
 */
export function formatSaving(before: number, after: number): string {
  const percent = before > 0 ? ((before - after) / before) * 100 : 0;
  const shown = percent.toFixed(1);
  return percent <= 0 || Number(shown) === 0 ? '0%' : `-${shown}%`;
}

/** `7 of 10 calls left this hour`, or nothing when the server sent no rate-limit headers. */
export function describeRateLimit(rateLimit: RateLimitInfo | undefined): string {
  if (rateLimit === undefined) return '';
  if (rateLimit.limit === null) return 'no hourly limit';
  return `${rateLimit.remaining ?? 0} of ${rateLimit.limit} calls left this hour`;
}

/** An item's input as a person reads it: `stdin` for `-`, merge's inputs joined with `+`. */
export function describeInput(input: ItemReport['input']): string {
  if (Array.isArray(input)) return input.map(describeInput).join(' + ');
  if (input === STDIO) return 'stdin';
  return input ?? '';
}

/** Where an output went: its path, `stdout`, or its signed URL and expiry. */
export function describeOutput(output: OutputReport | undefined): string {
  switch (output?.kind) {
    case undefined:
      return '';
    case 'file':
      return output.path;
    case 'stdout':
      return 'stdout';
    case 'url':
      return `${output.url} (expires ${describeWhen(new Date(output.expires_at), new Date())})`;
  }
}

/**
 * A job's state for the spinner, before the input's name: `queued:`, `compressing`, or with the
 * engine's count (openapi.yaml `JobProgress`: pages, or files for merge) `compressing 3/12 of`, or
 * with the count's `unit` `reading 3/12 pages of`.
 */
export function formatJobProgress(
  job: Pick<Job, 'status' | 'progress'>,
  doing: string,
  unit?: string,
): string {
  if (job.status === 'queued') return 'queued:';
  if (job.status !== 'running') return `${job.status}:`;
  const progress = job.progress;
  if (progress === null || progress === undefined || !(progress.total > 0)) return doing;
  const count = `${Math.min(progress.done, progress.total)}/${progress.total}`;
  return `${doing} ${count}${unit === undefined ? '' : ` ${unit}`} of`;
}

/**
 * What a job was for, by its files' names (openapi.yaml `Job.inputs`): `a.pdf`, `a.pdf, b.pdf`, or
 * `a.pdf, b.pdf and 18 more` for a long merge; empty from a server that does not say.
 */
export function describeJobInputs(job: Pick<Job, 'inputs'>): string {
  const names = (job.inputs ?? []).map((input) => (input.name === '' ? '(unnamed)' : input.name));
  if (names.length <= 2) return names.join(', ');
  return `${names.slice(0, 2).join(', ')} and ${names.length - 2} more`;
}
