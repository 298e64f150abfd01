// CPU time spent by processes (Linux /proc), for the scenarios whose wall-clock ratios the shared machine's
// load decides as much as the code: which process kept the cores busy (what bounds the
// throughput of 2 workers on 2 cores), and the work done by a server and everything it started against a
// CLI (OCR of documents against the ocrmypdf CLI). The difference of two readings is the work
// done between them, whatever else runs.
import { readFile } from 'node:fs/promises';
import { processTree } from './process-memory.js';

/** Linux's USER_HZ: /proc reports CPU times in these ticks (`getconf CLK_TCK`, 100 on every Linux ABI). */
const TICKS_PER_SECOND = 100;

/**
 * User and system seconds of `pid` itself and of the children it has waited for (/proc/<pid>/stat
 * utime + stime, cutime + cstime); undefined once it is gone.
 */
async function cpuTimes(pid: number | 'self'): Promise<{ own: number; waited: number } | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) " the state is field 3: utime (14) to cstime (17) are at 11 to 14 here.
    const [utime, stime, cutime, cstime] = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .slice(11, 15)
      .map((ticks) => Number(ticks) / TICKS_PER_SECOND);
    return { own: (utime ?? 0) + (stime ?? 0), waited: (cutime ?? 0) + (cstime ?? 0) };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds `pid` used so far, with its children that ended (its tools: Ghostscript, qpdf,
 * tesseract); undefined once it is gone.
 */
export async function cpuSeconds(pid: number): Promise<number | undefined> {
  const times = await cpuTimes(pid);
  return times === undefined ? undefined : times.own + times.waited;
}

/**
 * CPU seconds of `pid` and every process below it now. A process that ends between two readings moves
 * from its own line to its parent's children's times (once waited for), so differences stay whole.
 */
export async function treeCpuSeconds(pid: number): Promise<number> {
  const members = await Promise.all((await processTree(pid)).map((member) => cpuSeconds(member)));
  return members.reduce<number>((sum, seconds) => sum + (seconds ?? 0), 0);
}

/** CPU seconds of the children this process has waited for: the tools it ran to their end. */
export async function waitedChildrenCpuSeconds(): Promise<number> {
  return (await cpuTimes('self'))?.waited ?? 0;
}
