// Small outputs skip the bucket. On the shared backends a small merge's output cost a PUT to the bucket
// by the worker before its job could end (and the caller be answered), and a GET by whichever API
// process served its download: each a request to another process, which waits for a core of its own
// on a busy machine. An output of at most INLINE_OUTPUT_BYTES is kept as a row of the job store's
// database instead (output-rows.ts), stored by the statement that ends its job (JobOutcome's
// `outputs`), so it costs no round trip of its own and exists only once the job succeeded, and read
// back by any API process. Larger outputs go to the store underneath, as do a job's outputs past
// INLINE_OUTPUT_BYTES in all. Rows and objects expire alike: the one sweeper deletes both (sweep()).
import { readFile, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { OUTPUT_ID_PATTERN } from './output-id.js';
import type { OutputRow, OutputRows } from './output-rows.js';
import type { OpenedOutput, OutputMeta, OutputStore } from './output-store.js';

/**
 * An output kept as a row, at most, and all those a job's end stores together: the size of a few pages
 * of text, held whole in memory until then.
 */
export const INLINE_OUTPUT_BYTES = 128 * 1024;

const heldBytes = (rows: readonly OutputRow[]) => rows.reduce((sum, row) => sum + row.body.length, 0);

export class SmallOutputsInline implements OutputStore {
  constructor(
    private readonly store: OutputStore,
    private readonly rows: OutputRows,
    private readonly limit = INLINE_OUTPUT_BYTES,
  ) {}

  async put(
    key: string,
    sourcePath: string,
    given: { filename: string; expiresAt: number; size?: number },
    withEnd?: OutputRow[],
  ) {
    if (!OUTPUT_ID_PATTERN.test(key)) throw new Error(`'${key}' is not an output key`);
    const size = given.size ?? (await stat(sourcePath)).size;
    if (size <= this.limit) {
      const body = await readFile(sourcePath);
      // Read whole: the size given or seen may have changed since, the bytes are what counts.
      const meta: OutputMeta = {
        id: key,
        filename: given.filename,
        size: body.length,
        expiresAt: given.expiresAt,
      };
      if (withEnd === undefined) {
        await this.rows.put({ meta, body });
        return meta;
      }
      // Left for the statement that ends the job, up to `limit` for all its outputs: a job of a
      // thousand page images must not hold them all in memory for one statement. Checked and added
      // with no await between, so outputs published at once cannot pass the limit together.
      if (heldBytes(withEnd) + body.length <= this.limit) {
        withEnd.push({ meta, body });
        return meta;
      }
    }
    const meta = await this.store.put(key, sourcePath, given);
    // A row under the key would be served first (open()). Rows left with a job's end exist only once
    // it succeeded, and a succeeded job never runs again: only a row put on its own can be there.
    if (withEnd === undefined) await this.rows.forget(key);
    return meta;
  }

  async open(key: string): Promise<OpenedOutput | undefined> {
    if (!OUTPUT_ID_PATTERN.test(key)) return undefined;
    const row = await this.rows.get(key);
    if (row === undefined) return this.store.open(key);
    return { meta: row.meta, body: Readable.from([row.body]) };
  }

  async sweep(now: number): Promise<number> {
    return (await this.rows.sweep(now)) + (await this.store.sweep(now));
  }
}
