// Small inputs travel with their job instead of through the store's storage. On the shared backends a
// small merge's two files cost the bucket a PUT each from the API process, a GET each from the worker,
// and a DELETE each at the job's end: round trips that were most of what a small call added to the
// embedded server's time, and most of the bucket's work. The files of a job holding at most
// INLINE_BYTES in all ride in its record instead, base64 (`JobInputFile.inline`): the job store keeps
// them beside the record until the job ends (jobs/job-rows.ts), and the BullMQ job carrying the record
// hands them to the worker. Larger jobs go to the store underneath, as does work kept between a job's
// turns (the end still lists the bucket for that work).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobInputFile } from '../jobs/job-store.js';
import type { OperationInput } from '../operations/index.js';
import type { InputStore } from './input-store.js';

/** A job's inputs in all, at most: about 170 KiB once in base64, in its row and its BullMQ job. */
export const INLINE_BYTES = 128 * 1024;

export class SmallInputsInline implements InputStore {
  constructor(
    private readonly store: InputStore,
    private readonly limit = INLINE_BYTES,
  ) {}

  async put(jobId: string, uploads: readonly OperationInput[]): Promise<JobInputFile[]> {
    const total = uploads.reduce((sum, upload) => sum + upload.size, 0);
    if (total > this.limit) return this.store.put(jobId, uploads);
    return Promise.all(
      uploads.map(async (upload, index) => ({
        stored: String(index),
        name: upload.name,
        size: upload.size,
        inline: (await readFile(upload.path)).toString('base64'),
      })),
    );
  }

  async fetch(jobId: string, files: readonly JobInputFile[], dir: string): Promise<OperationInput[]> {
    const elsewhere = files.filter((file) => file.inline === undefined);
    const fetched = elsewhere.length === 0 ? [] : await this.store.fetch(jobId, elsewhere, dir);
    return Promise.all(
      files.map(async (file) => {
        if (file.inline === undefined) return fetched[elsewhere.indexOf(file)] as OperationInput;
        const path = join(dir, file.stored);
        await writeFile(path, Buffer.from(file.inline, 'base64'), { mode: 0o600 });
        return { path, name: file.name, size: file.size };
      }),
    );
  }

  keepWork(jobId: string, dir: string): Promise<void> {
    return this.store.keepWork(jobId, dir);
  }

  fetchWork(jobId: string, dir: string): Promise<void> {
    return this.store.fetchWork(jobId, dir);
  }

  /** Removes what the store underneath holds: inline files go with their record's end. */
  remove(jobId: string): Promise<void> {
    return this.store.remove(jobId);
  }

  prune(keep: ReadonlySet<string>, before: number): Promise<void> {
    return this.store.prune(keep, before);
  }
}
