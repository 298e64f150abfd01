// The sweeper runs only in the roles that sweep (role.ts: `all` and `api`, never `worker`):
// an expired output stays put under a storage opened without it and goes under one opened with it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../logger.js';
import { FolderOutputStore } from './folder-output-store.js';
import { openStorage, outputIdFor } from './index.js';

const KEY = outputIdFor('job_expired', 0);

const folders: string[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

/** A data folder holding one output that expired a second ago, and the store to look it up with. */
async function folderWithExpiredOutput() {
  const dataDir = await mkdtemp(join(tmpdir(), 'pdn-sweep-role-'));
  folders.push(dataDir);
  const store = await FolderOutputStore.open(dataDir);
  const source = join(dataDir, 'made.pdf');
  await writeFile(source, '%PDF-1.7\n');
  await store.put(KEY, source, { filename: 'made.pdf', expiresAt: Date.now() - 1000 });
  return { dataDir, store };
}

/** Whether the output is still there after the sweep interval has passed (and a sweep had time to end). */
async function keptAfterAnInterval(sweeps: boolean): Promise<boolean> {
  const { dataDir, store } = await folderWithExpiredOutput();
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  const storage = await openStorage({
    dataDir,
    signingSecret: undefined,
    log: createLogger('quiet'),
    role: { sweeps, sharesDataDir: !sweeps },
  });
  const kept = async () => {
    const opened = await store.open(KEY);
    opened?.body.destroy();
    return opened !== undefined;
  };
  try {
    vi.advanceTimersByTime(60_000);
    // The sweep itself is real file work: give it up to 2 s (a loaded machine is slow), on the real
    // setTimeout, which the test does not fake.
    for (let i = 0; i < 200 && (await kept()); i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    return await kept();
  } finally {
    storage.close();
  }
}

describe('the sweeper by role', () => {
  it('sweeps expired outputs where the role sweeps (all, api)', async () => {
    expect(await keptAfterAnInterval(true)).toBe(false);
  });

  it('leaves them where it does not (worker)', async () => {
    expect(await keptAfterAnInterval(false)).toBe(true);
  });
});
