// An S3 bucket on s3rver in a process of its own, for measurements: a bucket is a service apart from
// its clients, and s3rver in the measuring process would run its requests on the event loop that
// times the calls. Prints "listening <port>" once it answers; closes on SIGTERM.
// Usage: node s3rver-process.js <directory> <bucket>
import S3rver from 's3rver';

const [directory, bucket] = process.argv.slice(2);
if (!directory || !bucket) throw new Error('usage: s3rver-process.js <directory> <bucket>');
const s3 = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: [{ name: bucket }],
});
const { port } = await s3.run();
process.stdout.write(`listening ${port}\n`);
process.once('SIGTERM', () => {
  s3.close().then(() => process.exit(0));
});
