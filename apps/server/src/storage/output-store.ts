// Where outputs live until their download URL expires (STYLE.md 14): an interface with no
// connection or file types, so the folder in the data folder (folder-output-store.ts, the embedded
// default) and an S3-compatible bucket (s3/, shared by every process) are two implementations of it,
// both passing output-store.contract.ts. Keys are what a URL names (output-id.ts): never a path.
import type { Readable } from 'node:stream';
import type { OutputRow } from './output-rows.js';

export interface OutputMeta {
  id: string;
  /** The name offered to whoever downloads it (Content-Disposition). */
  filename: string;
  size: number;
  /** Unix milliseconds after which the output may be deleted. */
  expiresAt: number;
}

export interface OpenedOutput {
  meta: OutputMeta;
  /** The bytes, already open: a sweep after open() cannot pull them away. Read or destroy it. */
  body: Readable;
}

export interface OutputStore {
  /**
   * Stores the file at `sourcePath` (in a work folder; it may be moved away) under `key`, replacing
   * what the key held: a job run again overwrites its output instead of leaving a second one. A store
   * that keeps small outputs as rows (small-outputs-inline.ts) may instead add it to `withEnd`, the
   * rows its job's end stores (JobOutcome): such an output opens once the job ended. `meta.size`, when
   * the caller knows it (the engine that wrote the file counted it), spares the store a look at the file.
   */
  put(
    key: string,
    sourcePath: string,
    meta: { filename: string; expiresAt: number; size?: number },
    withEnd?: OutputRow[],
  ): Promise<OutputMeta>;
  /** The output under `key`, opened for reading; undefined when it does not exist (any more). */
  open(key: string): Promise<OpenedOutput | undefined>;
  /** Deletes every output whose expiry is at or before `now`; returns how many went. */
  sweep(now: number): Promise<number>;
}
