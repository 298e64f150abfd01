// The memory of a process and everything it started (Linux /proc), for the scenarios that measure the
// server's peak while its tools run.
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

/**
 * Proportional set size of a process now (Linux smaps_rollup Pss), 0 once it is gone: its own pages,
 * and its share of the pages it shares. Summed over a tree of processes that share most of their code
 * (a browser's), it counts each page once, where RSS counts it in every process.
 */
export async function pss(pid: number): Promise<number> {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(await readFile(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return Number(match?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** The processes `pid`'s threads started (Linux's /proc/<pid>/task/<tid>/children), [] once it is gone. */
async function childrenOf(pid: number): Promise<number[]> {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => []);
  const lists = await Promise.all(
    tasks.map((task) => readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '')),
  );
  return lists.flatMap((list) => list.split(' ').filter(Boolean).map(Number));
}

/**
 * `pid` and every process below it: the server and its OCR processes (and their tesseract runs).
 * Walked down from `pid` rather than by reading every process's parent: a sampler must cost the busy
 * machine it measures little (reading all of /proc every 200 ms took a tenth of a core).
 */
export async function processTree(pid: number): Promise<number[]> {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(await childrenOf(tree[i] ?? pid)));
  return tree;
}

/** `measure` summed over `pid`'s process tree. */
async function treeSum(pid: number, measure: (pid: number) => Promise<number>): Promise<number> {
  const sizes = await Promise.all((await processTree(pid)).map(measure));
  return sizes.reduce((sum, size) => sum + size, 0);
}

/** The RSS of `pid`'s process tree: pages shared between its processes counted in each. */
export const treeRss = (pid: number): Promise<number> => treeSum(pid, rss);

/** The PSS of `pid`'s process tree: shared pages split between the processes that share them. */
export const treePss = (pid: number): Promise<number> => treeSum(pid, pss);

/** Samples the RSS of `pid`'s process tree every `everyMs` until `stop()`; answers the peak of the sum. */
export function sampleTreePeak(pid: number, everyMs = 200): { stop(): Promise<number> } {
  return samplePeak(() => treeRss(pid), everyMs);
}
