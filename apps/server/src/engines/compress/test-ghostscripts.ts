// For tests: the pdfwrite Ghostscripts running on this machine, read from /proc (Linux), with the
// folder each runs in: a started-ahead one waits in a folder of its own (ghostscript-spares.ts), which
// holds its input once it was handed one.
import { readdir, readFile, readlink } from 'node:fs/promises';

export interface RunningGhostscript {
  pid: number;
  /** The folder it runs in. */
  cwd: string;
  commandLine: string;
}

export async function pdfwriteGhostscripts(): Promise<RunningGhostscript[]> {
  const running: RunningGhostscript[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const commandLine = await readFile(`/proc/${entry}/cmdline`, 'latin1');
      if (!commandLine.includes('-sDEVICE=pdfwrite')) continue;
      running.push({ pid: Number(entry), cwd: await readlink(`/proc/${entry}/cwd`), commandLine });
    } catch {
      // Gone already, or not ours to look at.
    }
  }
  return running;
}
