// Small outputs skip the bucket. On the shared backends a small merge's output cost a PUT to the bucket
// by the worker before its job could end (and the caller be answered), and a GET by whichever API
// process served its download: each a request to another process, which waits for a core of its own
// on a busy machine. An output of at most INLINE_OUTPUT_BYTES is kept as a row of the job store's
// database instead (output-rows.ts), stored by the statement that ends its job (JobOutcome's
// `outputs`), so it costs no round trip of its own and exists only once the job succeeded, and read
// back by any API process. Larger outputs go to the store underneath. Rows and objects expire alike:
// the one sweeper deletes both (sweep()).
import { readFile, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { OUTPUT_ID_PATTERN } from './output-id.js';
import type { OutputRow, OutputRows } from './output-rows.js';
import type { OpenedOutput, OutputMeta, OutputStore } from './output-store.js';

/** An output kept as a row, at most: the size of a few pages of text, held whole in memory. */
export const INLINE_OUTPUT_BYTES = 128 * 1024;

export class SmallOutputsInline implements OutputStore {
  constructor(
    private readonly store: OutputStore,
    private readonly rows: OutputRows,
    private readonly limit = INLINE_OUTPUT_BYTES,
  ) {}

  async put(
    key: string,
    sourcePath: string,
    given: { filename: string; expiresAt: number },
    withEnd?: OutputRow[],
  ) {
    if (!OUTPUT_ID_PATTERN.test(key)) throw new Error(`'${key}' is not an output key`);
    const { size } = await stat(sourcePath);
    if (size > this.limit) {
      const meta = await this.store.put(key, sourcePath, given);
      // A row an earlier attempt left under the key would be served first (open()).
      await this.rows.forget(key);
      return meta;
    }
    const body = await readFile(sourcePath);
    // Read whole: the size stat() saw may have changed since, the bytes are what counts.
    const meta: OutputMeta = {
      id: key,
      filename: given.filename,
      size: body.length,
      expiresAt: given.expiresAt,
    };
    // With a job's end when it has one: the statement that ends it stores the row, no round trip here.
    if (withEnd === undefined) await this.rows.put({ meta, body });
    else withEnd.push({ meta, body });
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
