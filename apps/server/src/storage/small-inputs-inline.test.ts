// Small inputs kept in their job's record, over the data folder's store: a job within the limit
// leaves nothing in the store underneath and gets its bytes back exactly; a larger one goes there.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { OperationInput } from '../operations/index.js';
import { FolderInputStore } from './folder-input-store.js';
import { SmallInputsInline } from './small-inputs-inline.js';

let root = '';
let store: SmallInputsInline;
let made = 0;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'pdn-inline-inputs-'));
  store = new SmallInputsInline(await FolderInputStore.open(join(root, 'data')), 1000);
});

afterEach(() => rm(root, { recursive: true, force: true }));

async function upload(bytes: Buffer, name = `in-${++made}.pdf`): Promise<OperationInput> {
  const path = join(root, `upload-${++made}`);
  await writeFile(path, bytes);
  return { path, name, size: bytes.length };
}

async function attempt(): Promise<string> {
  const dir = join(root, `attempt-${++made}`);
  await mkdir(dir);
  return dir;
}

const storedUnderneath = (jobId: string) => readdir(join(root, 'data', 'jobs', jobId)).catch(() => []);

it('keeps a job within the limit in its record, and gives every byte back for every attempt', async () => {
  const [a, b, empty] = [randomBytes(600), randomBytes(400), Buffer.alloc(0)];
  const files = await store.put('job_small', [
    await upload(a, 'a.pdf'),
    await upload(b, 'b.pdf'),
    await upload(empty),
  ]);
  expect(files.map(({ stored, name, size }) => ({ stored, name, size }))).toMatchObject([
    { stored: '0', name: 'a.pdf', size: 600 },
    { stored: '1', name: 'b.pdf', size: 400 },
    { stored: '2', size: 0 },
  ]);
  expect(files.every((file) => file.inline !== undefined)).toBe(true);
  expect(await storedUnderneath('job_small')).toEqual([]);
  for (const _ of [1, 2]) {
    const fetched = await store.fetch('job_small', files, await attempt());
    expect(await Promise.all(fetched.map((input) => readFile(input.path)))).toEqual([a, b, empty]);
    expect(fetched.map(({ name, size }) => ({ name, size }))).toEqual([
      { name: 'a.pdf', size: 600 },
      { name: 'b.pdf', size: 400 },
      { name: files[2]?.name, size: 0 },
    ]);
  }
});

it('hands a job over the limit in all to the store underneath, and fetches it from there', async () => {
  const [a, b] = [randomBytes(600), randomBytes(401)];
  const files = await store.put('job_large', [await upload(a), await upload(b)]);
  expect(files.some((file) => file.inline !== undefined)).toBe(false);
  expect(await storedUnderneath('job_large')).toEqual(['inputs']);
  const fetched = await store.fetch('job_large', files, await attempt());
  expect(await Promise.all(fetched.map((input) => readFile(input.path)))).toEqual([a, b]);
  await store.remove('job_large');
  await expect(store.fetch('job_large', files, await attempt())).rejects.toThrow();
});

it('keeps the work a job kept between its turns in the store underneath', async () => {
  const files = await store.put('job_turns', [await upload(randomBytes(10))]);
  const work = await attempt();
  await writeFile(join(work, 'page-1.txt'), 'read');
  await store.keepWork('job_turns', work);
  const next = await attempt();
  await store.fetchWork('job_turns', next);
  expect(await readFile(join(next, 'page-1.txt'), 'utf8')).toBe('read');
  await store.remove('job_turns');
  expect(await storedUnderneath('job_turns')).toEqual([]);
  expect(files).toHaveLength(1);
});
