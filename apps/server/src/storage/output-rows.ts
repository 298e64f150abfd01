// Small outputs kept as rows of the database instead of objects of the bucket (small-outputs-inline.ts):
// one store per database (sqlite-output-rows.ts, pg-output-rows.ts), both passing
// output-rows.contract.ts. A row holds the bytes and what the bucket keeps as object metadata.
import type { OutputMeta } from './output-store.js';

export interface OutputRow {
  meta: OutputMeta;
  body: Buffer;
}

export interface OutputRows {
  /** Stores the output under `row.meta.id`, replacing what the id held (a job run again). */
  put(row: OutputRow): Promise<void>;
  /** The output under `id`; undefined when there is none (any more). */
  get(id: string): Promise<OutputRow | undefined>;
  /** Forgets the output under `id`, if any: a job run again made a larger one, kept elsewhere. */
  forget(id: string): Promise<void>;
  /** Deletes every output whose expiry is at or before `now`; returns how many went. */
  sweep(now: number): Promise<number>;
}
