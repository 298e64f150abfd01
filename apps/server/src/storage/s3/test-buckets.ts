// For the bucket stores' suites: s3rver run in this process, an S3 client on it, and an empty bucket
// per test. s3rver checks no signatures, so the suites only ever ask it to store and give back.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll } from 'vitest';
import { uniqueName } from '../../test-services.js';

/** Starts s3rver for the suite; call the answer in a test (or beforeEach) for a client and a new bucket. */
export function useTestBuckets(): () => Promise<{ client: S3Client; bucket: string }> {
  let directory = '';
  let server: S3rver;
  let client: S3Client;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'pdn-s3rver-'));
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
    const { port } = await server.run();
    client = new S3Client({
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  });

  afterAll(async () => {
    client?.destroy();
    await server?.close();
    await rm(directory, { recursive: true, force: true });
  });

  return async () => {
    const bucket = uniqueName('pdn-test').replace('_', '-');
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    return { client, bucket };
  };
}
