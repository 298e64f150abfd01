// The shared InputStore (input-store.contract.ts): a job's uploads as objects of the
// private bucket, `inputs/<job id>/<index>`, so any worker runs any job wherever it was submitted, and
// a job stored again overwrites its inputs. Work a job kept when it handed its slot on is under
// `inputs/<job id>/kept/`, so the worker that takes its next turn finds it. Streamed up in parts and down to a file, never whole in
// memory. Loaded only when the shared backends are chosen (STYLE.md 20).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { JobInputFile } from '../../jobs/job-store.js';
import type { OperationInput } from '../../operations/index.js';
import { orUnavailable } from '../../unreachable.js';
import type { InputStore } from '../input-store.js';
import { downloadFile, eachAtOnce, listObjects, uploadFile, uploadsAtOnce } from './s3-objects.js';

const SERVICE = 'input storage (S3)';
const PREFIX = 'inputs/';

const keyOf = (jobId: string, stored: string) => `${PREFIX}${jobId}/${stored}`;
const keptPrefix = (jobId: string) => `${PREFIX}${jobId}/kept/`;

export class S3InputStore implements InputStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  put(jobId: string, uploads: readonly OperationInput[]): Promise<JobInputFile[]> {
    return orUnavailable(SERVICE, () =>
      eachAtOnce(
        [...uploads.entries()],
        async ([index, upload]) => {
          const stored = String(index);
          await uploadFile(this.client, this.bucket, keyOf(jobId, stored), upload.path);
          return { stored, name: upload.name, size: upload.size };
        },
        uploadsAtOnce(uploads.map((upload) => upload.size)),
      ),
    );
  }

  fetch(jobId: string, files: readonly JobInputFile[], dir: string): Promise<OperationInput[]> {
    return orUnavailable(SERVICE, () =>
      eachAtOnce(files, async (file) => {
        const path = join(dir, file.stored);
        await downloadFile(this.client, this.bucket, keyOf(jobId, file.stored), path);
        return { path, name: file.name, size: file.size };
      }),
    );
  }

  keepWork(jobId: string, dir: string): Promise<void> {
    return orUnavailable(SERVICE, async () => {
      const names = await readdir(dir);
      const before = new Set<string>();
      for await (const { Key } of listObjects(this.client, this.bucket, keptPrefix(jobId))) {
        const name = Key?.slice(keptPrefix(jobId).length) ?? '';
        before.add(name);
        if (!names.includes(name))
          await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
      }
      for (const name of names.filter((name) => !before.has(name)))
        await uploadFile(this.client, this.bucket, keptPrefix(jobId) + name, join(dir, name));
    });
  }

  fetchWork(jobId: string, dir: string): Promise<void> {
    return orUnavailable(SERVICE, async () => {
      for await (const { Key } of listObjects(this.client, this.bucket, keptPrefix(jobId)))
        if (Key !== undefined)
          await downloadFile(this.client, this.bucket, Key, join(dir, Key.slice(keptPrefix(jobId).length)));
    });
  }

  remove(jobId: string): Promise<void> {
    return orUnavailable(SERVICE, async () => {
      for await (const { Key } of listObjects(this.client, this.bucket, `${PREFIX}${jobId}/`))
        await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
    });
  }

  prune(keep: ReadonlySet<string>, before: number): Promise<void> {
    return orUnavailable(SERVICE, async () => {
      for await (const { Key, LastModified } of listObjects(this.client, this.bucket, PREFIX)) {
        const jobId = Key?.slice(PREFIX.length).split('/')[0] ?? '';
        if (keep.has(jobId) || (LastModified?.getTime() ?? 0) >= before) continue;
        await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
      }
    });
  }
}
