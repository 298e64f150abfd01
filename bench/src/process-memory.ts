// The memory of a process and everything it started (Linux /proc), for the scenarios that measure the
// server's peak while its tools run (issues #6, #11, #17).
import { readdir, readFile } from 'node:fs/promises';
import { samplePeak } from './peak.js';

/** Resident set size of a process now (Linux VmRSS), 0 once it is gone. */
export async function rss(pid: number): Promise<number> {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
    return Number(match?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** `pid` and every process below it: the server and its OCR processes (and their tesseract runs). */
export async function processTree(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so read after its ')'.
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  }
  return tree;
}

/** Samples the RSS of `pid`'s process tree every `everyMs` until `stop()`; answers the peak of the sum. */
export function sampleTreePeak(pid: number, everyMs = 200): { stop(): Promise<number> } {
  return samplePeak(async () => {
    const sizes = await Promise.all((await processTree(pid)).map((member) => rss(member)));
    return sizes.reduce((sum, size) => sum + size, 0);
  }, everyMs);
}
