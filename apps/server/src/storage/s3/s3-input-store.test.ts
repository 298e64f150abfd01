// The S3 store against the InputStore contract, on s3rver run in this process with a bucket per test.
import { inputStoreContract } from '../input-store.contract.js';
import { S3InputStore } from './s3-input-store.js';
import { useTestBuckets } from './test-buckets.js';

const newBucket = useTestBuckets();

inputStoreContract({
  name: 'S3 (s3rver)',
  async open() {
    const { client, bucket } = await newBucket();
    return new S3InputStore(client, bucket);
  },
  async dispose() {},
});
