// How long a job and what it made are kept (openapi.yaml, "Jobs"), how often clients are told to poll,
// and how often a job is tried. One place, so the contract's figures and the sweeping agree.
import type { JobError } from './job-store.js';

/** A finished job's result and output files: 1 hour after it finished. */
export const RESULT_RETENTION_MS = 60 * 60_000;

/** The job record itself: forgotten (404) 24 hours after it finished. */
export const RECORD_RETENTION_MS = 24 * 60 * 60_000;

/**
 * Output files are stamped to live this long after they were made, a little past the result's
 * retention (counted from the job's end, which comes just after): a URL never outlives its file.
 */
export const OUTPUT_KEEP_MS = RESULT_RETENTION_MS + 60_000;

/** Suggested wait between polls of an unfinished job (`poll_after_seconds`). */
export const POLL_AFTER_SECONDS = 1;

/** A job is started at most this often: once, and once more after a restart interrupted it. */
export const MAX_ATTEMPTS = 2;

/** Shown for a job a restart interrupted on its last attempt (openapi.yaml, "Jobs"). */
export const INTERRUPTED: JobError = {
  code: 'internal_error',
  message: `The server stopped while running this job, ${MAX_ATTEMPTS} times; it was not run again. Submit it again.`,
};
