// The warm browser: one Chromium for every call, started at the first, and started again at the next
// call once it has died; it dies with this process (the parent-death signal of setpriv in front).
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectTools } from '../tools.js';
import type { WorkFolders } from '../types.js';
import { WarmBrowser } from './warm-browser.js';

const { chromium } = await detectTools();

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** The processes whose parent is this one and whose command line names Chromium. */
async function browserChildren(): Promise<number[]> {
  const raw = await readFile(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8');
  const pids = raw.split(' ').filter(Boolean).map(Number);
  const named = await Promise.all(
    pids.map(async (pid) =>
      (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).includes('chromium') ? pid : 0,
    ),
  );
  return named.filter((pid) => pid !== 0);
}

/** Profile folders as the server's work area gives them, each remembered. */
const made: string[] = [];
const folders: WorkFolders = {
  async create(prefix) {
    const folder = await mkdtemp(join(tmpdir(), `pdn-warm-browser-${prefix}`));
    made.push(folder);
    return folder;
  },
  remove: (folder) => rm(folder, { recursive: true, force: true }),
};

describe.skipIf(chromium === undefined)('WarmBrowser', () => {
  const warm = new WarmBrowser(chromium?.path ?? '', folders, { info: () => {}, warn: () => {} });
  afterAll(() => warm.close());

  it('keeps one browser, and starts another once it has gone', async () => {
    const first = await warm.browser();
    expect(await warm.browser()).toBe(first);
    const [pid] = await browserChildren();
    expect(pid).toBeDefined();
    // Started through setpriv, so the kernel kills it when this process dies.
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    expect(status).toMatch(/^Name:\s+chrom/m);
    await first.close();
    const second = await warm.browser();
    expect(second).not.toBe(first);
    expect(second.isConnected()).toBe(true);
  });

  it('makes each profile in a folder of the work area, and removes it once its browser has gone', async () => {
    expect(made).toHaveLength(2);
    // The dead browser's, removed as the second started; the second's, on close.
    expect(await exists(made[0] ?? '')).toBe(false);
    expect(await exists(made[1] ?? '')).toBe(true);
    await warm.close();
    expect(await exists(made[1] ?? '')).toBe(false);
  });
});
