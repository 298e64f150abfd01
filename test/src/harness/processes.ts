// Which processes are still running for a server: tools it started whose command lines name its data
// folder. Used to check that a timeout or a cancel killed them, and how a tool was started (its process
// group, its environment) while it runs (Linux /proc; empty elsewhere).
import { readdir, readFile } from 'node:fs/promises';

/** Command lines of running processes that mention `text`. */
export async function processesMentioning(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(text)) found.push(cmdline.replaceAll('\0', ' '));
  }
  return found;
}

export interface RunningProcess {
  pid: number;
  /** Its process group (/proc/<pid>/stat field 5). */
  group: number;
  args: string[];
  /** `NAME=value` as it was started. */
  environment: string[];
}

/** A running process whose arguments include one ending in `/<program>` and that mentions `text`. */
export async function runningProgram(program: string, text: string): Promise<RunningProcess | undefined> {
  for (const entry of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(entry)) continue;
    const args = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (!args.some((arg) => arg.endsWith(`/${program}`)) || !args.some((arg) => arg.includes(text))) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const environ = await readFile(`/proc/${entry}/environ`, 'utf8').catch(() => '');
    // "pid (comm) state ppid pgrp ...": comm may hold spaces, so read after its ')'.
    const group = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    return { pid: Number(entry), group, args, environment: environ.split('\0') };
  }
  return undefined;
}
