// Every sample PDF compressed as a job: all submitted first, then collected, so the
// server works on them while this script waits. In the repository's root, with the server running:
//   PDN_API_KEY=pdn_test_... node examples/jobs.mjs
import { fromPath, Pdn } from '@pdn/sdk';

// The key comes from PDN_API_KEY and the server from PDN_BASE_URL (else http://127.0.0.1:3000), as
// the SDK reads them when they are not given.
const pdn = new Pdn();
const files = ['examples/a.pdf', 'examples/b.pdf', 'examples/ab.pdf', 'examples/photos.pdf'];

const jobs = [];
for (const path of files) {
  const job = await pdn.jobs.submit('compress', { file: fromPath(path), level: 'high' });
  console.log(`${path}: job ${job.id} ${job.status}`);
  jobs.push({ path, job });
}

for (const { path, job } of jobs) {
  const result = await job.wait({
    onProgress: (j) =>
      j.progress && console.log(`${path}: ${j.status} ${j.progress.done}/${j.progress.total}`),
  });
  const target = path.replace(/\.pdf$/, '.job.pdf');
  await pdn.download(result.download, target);
  console.log(`${path} -> ${target}: ${result.original_size} -> ${result.compressed_size} bytes`);
}

const { jobs: recent } = await pdn.jobs.list({ status: 'succeeded', limit: 5 });
console.log(`latest succeeded: ${recent.map((j) => j.id).join(' ')}`);
