// The shared OutputStore (output-store.contract.ts): outputs as objects of one private
// bucket, `outputs/<key>`, so any process serves any output by streaming it from the bucket (never a
// redirect to a presigned URL: the bucket stays private, the download URL keeps our own signature).
// Uploads stream from the work folder in parts (@aws-sdk/lib-storage), never whole in memory. The
// download name and expiry travel as object metadata (the name percent-encoded: S3 metadata is ASCII).
// Loaded only when the shared backends are chosen (STYLE.md 20).
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { orUnavailable } from '../../unreachable.js';
import { OUTPUT_ID_PATTERN } from '../output-id.js';
import type { OpenedOutput, OutputMeta, OutputStore } from '../output-store.js';
import { isMissing, listObjects, uploadFile } from './s3-objects.js';

const SERVICE = 'output storage (S3)';
const PREFIX = 'outputs/';

/** The metadata written by put(); undefined for an object it did not write (or a torn one). */
function metaOf(id: string, metadata: Record<string, string> | undefined, size: number | undefined) {
  const filename = metadata?.filename;
  const expiresAt = Number(metadata?.['expires-at']);
  if (filename === undefined || !Number.isSafeInteger(expiresAt) || size === undefined) return undefined;
  return { id, filename: decodeURIComponent(filename), size, expiresAt } satisfies OutputMeta;
}

export class S3OutputStore implements OutputStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  put(id: string, sourcePath: string, given: { filename: string; expiresAt: number }): Promise<OutputMeta> {
    return orUnavailable(SERVICE, () => this.upload(id, sourcePath, given));
  }

  open(id: string): Promise<OpenedOutput | undefined> {
    return orUnavailable(SERVICE, () => this.get(id));
  }

  private async upload(id: string, sourcePath: string, given: { filename: string; expiresAt: number }) {
    if (!OUTPUT_ID_PATTERN.test(id)) throw new Error(`'${id}' is not an output key`);
    const { size } = await stat(sourcePath);
    await uploadFile(this.client, this.bucket, `${PREFIX}${id}`, sourcePath, {
      ContentType: 'application/pdf',
      Metadata: { filename: encodeURIComponent(given.filename), 'expires-at': String(given.expiresAt) },
    });
    return { id, filename: given.filename, size, expiresAt: given.expiresAt };
  }

  private async get(id: string): Promise<OpenedOutput | undefined> {
    if (!OUTPUT_ID_PATTERN.test(id)) return undefined;
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: `${PREFIX}${id}` }),
      );
      const body = object.Body as Readable | undefined;
      const meta = metaOf(id, object.Metadata, object.ContentLength);
      if (!meta || !body) {
        body?.destroy();
        return undefined;
      }
      return { meta, body };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async sweep(now: number): Promise<number> {
    let removed = 0;
    for await (const { Key: key, Size: size } of listObjects(this.client, this.bucket, PREFIX)) {
      if (key === undefined) continue;
      const id = key.slice(PREFIX.length);
      if (!(await this.expired(key, id, size, now))) continue;
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
      removed += 1;
    }
    return removed;
  }

  /** Past its expiry, or unreadable metadata (nothing could ever serve it); gone already counts as not. */
  private async expired(key: string, id: string, size: number | undefined, now: number): Promise<boolean> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      const meta = metaOf(id, head.Metadata, size);
      return meta === undefined || meta.expiresAt <= now;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }
}
