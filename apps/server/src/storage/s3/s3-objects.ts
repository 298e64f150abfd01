// What both bucket stores (s3-output-store.ts, s3-input-store.ts) do with objects: stream a file up in
// parts, stream an object down to a file, list keys under a prefix, tell a missing object from a
// failure, and send a call's uploads and downloads a few at once. Loaded only when the shared
// backends are chosen (STYLE.md 20).
import { createReadStream, createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type _Object, GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';

/** Parts of 8 MiB, four in flight: at most 32 MiB of one upload in memory, whatever its size. */
const PART_BYTES = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 4;

/**
 * Requests of one call in flight at once. Each request to the bucket is a round trip of a few
 * milliseconds, most of it waiting: a merge's inputs sent one after another cost the caller their sum.
 */
const REQUESTS_AT_ONCE = 4;

/**
 * How many of these files one call sends at once: small ones (a single part, held whole in memory)
 * REQUESTS_AT_ONCE at a time; when any is larger, one at a time, as its parts already go four at once.
 */
export function uploadsAtOnce(sizes: readonly number[]): number {
  return sizes.every((size) => size <= PART_BYTES) ? REQUESTS_AT_ONCE : 1;
}

/**
 * `request` for each item, at most `atOnce` in flight, results in the items' order. Every request
 * started is settled before the first failure is thrown, so none outlives the call (a download into a
 * folder about to be removed); none starts after a failure.
 */
export async function eachAtOnce<T, R>(
  items: readonly T[],
  request: (item: T) => Promise<R>,
  atOnce = REQUESTS_AT_ONCE,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (failure === undefined && next < items.length) {
      const index = next;
      next += 1;
      try {
        results[index] = await request(items[index] as T);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, lane));
  if (failure !== undefined) throw failure.error;
  return results;
}

export function isMissing(error: unknown): boolean {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NoSuchKey' || name === 'NotFound' || $metadata?.httpStatusCode === 404;
}

/** Streams the file at `path` to `key` (@aws-sdk/lib-storage), never whole in memory; replaces what `key` held. */
export async function uploadFile(
  client: S3Client,
  bucket: string,
  key: string,
  path: string,
  extra: { ContentType?: string; Metadata?: Record<string, string> } = {},
): Promise<void> {
  const upload = new Upload({
    client,
    partSize: PART_BYTES,
    queueSize: PARTS_IN_FLIGHT,
    params: { Bucket: bucket, Key: key, Body: createReadStream(path), ...extra },
  });
  await upload.done();
}

/** Streams the object `key` into a new file at `path`; throws when there is no such object. */
export async function downloadFile(client: S3Client, bucket: string, key: string, path: string) {
  const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const body = object.Body as Readable | undefined;
  if (body === undefined) throw new Error(`the bucket answered no body for ${key}`);
  await pipeline(body, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
}

/** Every object under `prefix`, page by page. */
export async function* listObjects(
  client: S3Client,
  bucket: string,
  prefix: string,
): AsyncGenerator<_Object> {
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    yield* page.Contents ?? [];
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
}
