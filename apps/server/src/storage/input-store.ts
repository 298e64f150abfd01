// Where a job's uploaded files wait between submission and the job's end (STYLE.md 14): an
// interface with no connection or folder types, so the data folder (folder-input-store.ts, the
// embedded default) and the shared bucket (s3/s3-input-store.ts) are two implementations of it, both
// passing input-store.contract.ts. With inputs in the bucket, the process that runs a job needs no
// folder in common with the one that took it (API processes and workers on other machines).
import type { JobInputFile } from '../jobs/job-store.js';
import type { OperationInput } from '../operations/index.js';

export interface InputStore {
  /**
   * Keeps the uploads (files in a request's work folder; they may be moved away) as job `jobId`'s
   * inputs, keyed by the job and their index, so storing a job again overwrites instead of adding.
   */
  put(jobId: string, uploads: readonly OperationInput[]): Promise<JobInputFile[]>;
  /**
   * The job's inputs as files in `dir` (a folder of the attempt's own, on this machine), in order; the
   * stored inputs stay for a later attempt. Throws when they are gone.
   */
  fetch(jobId: string, files: readonly JobInputFile[], dir: string): Promise<OperationInput[]>;
  /**
   * Keeps the files of `dir` (a flat folder) as the work job `jobId` finished before it handed its slot
   * on: those not kept yet are added, kept ones no longer there forgotten. A file is never rewritten
   * under its name, so one kept before is not sent again. They go when the job's inputs go.
   */
  keepWork(jobId: string, dir: string): Promise<void>;
  /** Puts the work kept for job `jobId` into `dir` as files; none when nothing was kept. */
  fetchWork(jobId: string, dir: string): Promise<void>;
  /** Removes the job's inputs; nothing to remove is no error. */
  remove(jobId: string): Promise<void>;
  /**
   * Removes the inputs of jobs not in `keep` stored before `before` (Unix milliseconds): what a crash
   * left between storing inputs and storing their job, or between a job's end and the removal. The
   * margin spares inputs just stored for a job another process has not stored yet.
   */
  prune(keep: ReadonlySet<string>, before: number): Promise<void>;
}
