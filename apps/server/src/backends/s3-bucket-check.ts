// The one look at the S3 bucket a server takes before it starts: HEAD on the bucket. Its failures come
// back from the AWS SDK as bare statuses (a HEAD has no body to explain itself: a missing bucket was
// "UnknownError"), so each is said here in the operator's terms, naming the bucket and the fix.
import { HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from './backend-config.js';

interface S3Failure {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

/** Where the bucket was looked for, for messages. */
function place(config: S3Config): string {
  return config.endpoint === undefined ? `AWS S3 (region ${config.region})` : config.endpoint;
}

/** The message for a failed HEAD of the bucket, or undefined when the SDK's own says it already. */
export function bucketProblem(error: unknown, config: S3Config): string | undefined {
  const failure = (error ?? {}) as S3Failure;
  const status = failure.$metadata?.httpStatusCode;
  const bucket = config.bucket;
  if (status === 404 || failure.name === 'NotFound' || failure.name === 'NoSuchBucket')
    return (
      `the S3 bucket ${bucket} does not exist at ${place(config)}. Create it (aws s3 mb s3://${bucket}, ` +
      "or in your provider's console), or set PDN_S3_BUCKET to a bucket that exists."
    );
  if (status === 403 || failure.name === 'Forbidden' || failure.name === 'AccessDenied')
    return (
      `access to the S3 bucket ${bucket} at ${place(config)} is denied. Check the credentials ` +
      "(AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the instance role) and that the bucket's policy " +
      'lets them list, read, write and delete objects.'
    );
  if (status === 301 || failure.name === 'PermanentRedirect')
    return `the S3 bucket ${bucket} is in another region than PDN_S3_REGION=${config.region}: set the bucket's region.`;
  return undefined;
}

/** Throws, with a message naming the bucket and the fix, unless the bucket answers. */
export async function checkBucket(client: S3Client, config: S3Config): Promise<void> {
  try {
    await client.send(new HeadBucketCommand({ Bucket: config.bucket }));
  } catch (error) {
    const problem = bucketProblem(error, config);
    if (problem !== undefined) throw new Error(problem, { cause: error });
    throw new Error(
      `cannot use the S3 bucket ${config.bucket} at ${place(config)}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}
