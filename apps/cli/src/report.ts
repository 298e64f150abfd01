// The one document `--json` prints on stdout: every file's result or error (code, message, request
// id). Scripts parse it, so it is stable and documented in the README. Field names are snake_case
// like the API.
import {
  ApiError,
  InsufficientStorageError,
  PdnError,
  RateLimitError,
  ServiceUnavailableError,
} from '@pdn/sdk';
import type { Outcome } from './batch.js';
import { CliError } from './errors.js';

export type ItemStatus = 'succeeded' | 'failed' | 'not_processed' | 'skipped';

/**
 * Why an input was not sent: its output exists and --skip-existing was given, or it is named like one
 * of pdn's own outputs and came with other inputs (see `own-outputs.ts`); or, with --resume, the
 * interrupted run already delivered it; or the server could not be reached, so it was never tried
 * (`server_unreachable`, with the command's `error` saying why: unlike the others, not a success).
 */
export type SkipReason = 'output_exists' | 'pdn_output' | 'collected' | 'server_unreachable';

export type OutputReport =
  | { kind: 'file'; path: string; bytes: number }
  | { kind: 'stdout'; bytes: number }
  | { kind: 'url'; url: string; expires_at: string };

export interface ErrorReport {
  /** The API's wire code (`invalid_input`, `rate_limited`...), the SDK's transport code
   * (`connection_error`, `timeout`, `aborted`) or the CLI's own (`output_exists`, `missing_api_key`...). */
  code: string;
  message: string;
  /** HTTP status, or null when no HTTP answer was involved. */
  status: number | null;
  request_id: string | null;
  /**
   * Seconds until sending the call again is worth it: `rate_limited`, `service_unavailable` and
   * `insufficient_storage` only.
   */
  retry_after?: number;
}

export interface ItemReport {
  /** The input as given (`-` for stdin); merge lists all its inputs; null for `languages`. */
  input: string | string[] | null;
  status: ItemStatus;
  request_id: string | null;
  /** The API's `data` object, unchanged, when the call succeeded. */
  data: unknown;
  outputs: OutputReport[];
  /** Why it failed, or for `not_processed`, the error that stopped the batch. */
  error: ErrorReport | null;
  /** Only on `skipped` items. */
  skip_reason?: SkipReason;
  /** compress, merge, split, ocr: the job that did the work (`pdn jobs get ID`), when there is one. */
  job_id?: string;
}

export interface CommandReport {
  command: string;
  ok: boolean;
  summary: { total: number; succeeded: number; failed: number; not_processed: number; skipped: number };
  results: ItemReport[];
  /** An error that stopped the command before any item ran (e.g. no API key), else null. */
  error: ErrorReport | null;
}

/** What a command's work function returns for one succeeded item. */
export interface ItemSuccess {
  requestId: string | null;
  data: unknown;
  outputs: OutputReport[];
  /** The job the item ran as, when it ran as one (`job_id` in the report). */
  jobId?: string;
}

/** An input left out before any request; `outputs` names the existing output for `output_exists`. */
export function skippedReport(
  input: ItemReport['input'],
  reason: SkipReason,
  outputs: OutputReport[] = [],
): ItemReport {
  return {
    input,
    status: 'skipped',
    request_id: null,
    data: null,
    outputs,
    error: null,
    skip_reason: reason,
  };
}

export function itemReport(input: ItemReport['input'], outcome: Outcome<ItemSuccess>): ItemReport {
  switch (outcome.status) {
    case 'succeeded':
      return {
        input,
        status: 'succeeded',
        request_id: outcome.value.requestId,
        data: outcome.value.data,
        outputs: outcome.value.outputs,
        error: null,
        ...(outcome.value.jobId === undefined ? {} : { job_id: outcome.value.jobId }),
      };
    case 'failed': {
      const error = errorReport(outcome.error);
      return { input, status: 'failed', request_id: error.request_id, data: null, outputs: [], error };
    }
    case 'not_processed':
      return {
        input,
        status: 'not_processed',
        request_id: null,
        data: null,
        outputs: [],
        error: outcome.reason === undefined ? null : errorReport(outcome.reason),
      };
  }
}

export function commandReport(
  command: string,
  results: ItemReport[],
  error: ErrorReport | null = null,
): CommandReport {
  const count = (status: ItemStatus) => results.filter((item) => item.status === status).length;
  const summary = {
    total: results.length,
    succeeded: count('succeeded'),
    failed: count('failed'),
    not_processed: count('not_processed'),
    skipped: count('skipped'),
  };
  // A skipped input's work was done before (or is pdn's own output): nothing failed. An error of the
  // command's own (the server could not be reached) fails it whatever its items.
  const ok = summary.failed + summary.not_processed === 0 && error === null;
  return { command, ok, summary, results, error };
}

export function errorReport(error: unknown): ErrorReport {
  if (error instanceof ApiError) {
    const report: ErrorReport = {
      code: error.code,
      message: error.message,
      status: error.status ?? null,
      request_id: error.requestId ?? null,
    };
    // Whatever says when to try again: a 429's Retry-After, a 503's or 507's hint in the envelope.
    const retryable =
      error instanceof RateLimitError ||
      error instanceof ServiceUnavailableError ||
      error instanceof InsufficientStorageError;
    if (retryable && error.retryAfter !== undefined) report.retry_after = error.retryAfter;
    return report;
  }
  if (error instanceof PdnError || error instanceof CliError) {
    return { code: error.code, message: error.message, status: null, request_id: null };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'unexpected_error', message, status: null, request_id: null };
}
