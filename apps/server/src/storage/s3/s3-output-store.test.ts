// The S3 store against the OutputStore contract, on s3rver run in this process with a bucket per test.
import { outputStoreContract } from '../output-store.contract.js';
import { S3OutputStore } from './s3-output-store.js';
import { useTestBuckets } from './test-buckets.js';

const newBucket = useTestBuckets();

outputStoreContract({
  name: 'S3 (s3rver)',
  async open() {
    const { client, bucket } = await newBucket();
    return new S3OutputStore(client, bucket);
  },
  async dispose() {},
});
