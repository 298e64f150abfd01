import type { Download } from '@pdn/api-types';
import { describe, expect, it } from 'vitest';
import { publishEach } from './publish-each.js';

const files = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ path: `/work/page-${i + 1}.jpg`, filename: `p${i + 1}.jpg` }));

/** A publisher that numbers outputs as the job's does (on call), answering after `delays[n]` turns. */
function publisher(delays: readonly number[], failing?: string) {
  let made = 0;
  let running = 0;
  const seen = { most: 0, started: [] as string[] };
  return {
    seen,
    async publish(path: string, filename: string): Promise<Download> {
      const id = made++;
      seen.started.push(filename);
      running += 1;
      seen.most = Math.max(seen.most, running);
      for (let turn = 0; turn < (delays[id] ?? 0); turn++) await Promise.resolve();
      running -= 1;
      if (filename === failing) throw new Error(`cannot store ${path}`);
      return { url: `/get?file=${id}`, expires_in: 900, expires_at: '2026-01-01T00:00:00.000Z' };
    },
  };
}

describe('publishEach', () => {
  it.each([
    ['one file', 1, [0], 8, 1],
    ['fewer files than at once, the later ones done first', 4, [9, 6, 3, 0], 8, 4],
    ['more files than at once', 20, Array.from({ length: 20 }, (_, i) => (i * 7) % 5), 3, 3],
  ])('%s: downloads in file order, numbered in file order', async (_, count, delays, atOnce, most) => {
    const outputs = publisher(delays);
    const downloads = await publishEach(outputs, files(count), atOnce);
    expect(downloads.map((d) => d.url)).toEqual(files(count).map((_, i) => `/get?file=${i}`));
    expect(outputs.seen.started).toEqual(files(count).map((f) => f.filename));
    expect(outputs.seen.most).toBe(most);
  });

  it('starts no more after a failure, lets those under way end, and throws the failure', async () => {
    const outputs = publisher([5, 0, 5, 5, 5, 5], 'p2.jpg');
    await expect(publishEach(outputs, files(6), 3)).rejects.toThrow('cannot store /work/page-2.jpg');
    expect(outputs.seen.started).toEqual(['p1.jpg', 'p2.jpg', 'p3.jpg']);
  });

  it('publishes nothing for no files', async () => {
    expect(await publishEach(publisher([]), [])).toEqual([]);
  });
});
