// The warm browser: one Chromium for every call, started at the first, and started again at the next
// call once it has died; it dies with this process (the parent-death signal of setpriv in front).
import { readFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { detectTools } from '../tools.js';
import { WarmBrowser } from './warm-browser.js';

const { chromium } = await detectTools();

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

describe.skipIf(chromium === undefined)('WarmBrowser', () => {
  const warm = new WarmBrowser(chromium?.path ?? '', { info: () => {}, warn: () => {} });
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
});
