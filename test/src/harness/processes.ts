// Which processes are still running for a server: tools it started whose command lines name its data
// folder, or that work in it. Used to check that a timeout, a cancel or the server's own death killed
// them, and how a tool was started (its process group, its environment) while it runs (Linux /proc;
// empty elsewhere).
import { existsSync } from 'node:fs';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Command lines of running processes that mention `text`. */
export async function processesMentioning(text: string): Promise<string[]> {
  return (await mentioning(text)).map(({ cmdline }) => cmdline.replaceAll('\0', ' '));
}

/**
 * Command lines of running processes that mention `text`, but for the Ghostscripts a server starts
 * ahead of the next compress (apps/server/src/engines/compress/ghostscript-spares.ts) while they wait
 * for it: a server keeps them on purpose.
 */
export async function toolsAtWork(text: string): Promise<string[]> {
  const waiting = new Set((await waitingGhostscripts(text)).map(({ pid }) => pid));
  return (await mentioning(text))
    .filter(({ pid }) => !waiting.has(pid))
    .map(({ cmdline }) => cmdline.replaceAll('\0', ' '));
}

/**
 * The Ghostscripts waiting for the next compress among the processes that mention `text`, and the
 * folders they wait in. One waiting reads its standard input (its last argument, `-`) in a folder
 * that holds no input; one at work has its input there, and one whose folder was removed is no spare.
 */
export async function waitingGhostscripts(text: string): Promise<{ pid: string; folder: string }[]> {
  const waiting: { pid: string; folder: string }[] = [];
  for (const { pid, cmdline } of await mentioning(text)) {
    const args = cmdline.split('\0').filter(Boolean);
    if (!args.includes('-sDEVICE=pdfwrite') || args.at(-1) !== '-') continue;
    const folder = await readlink(`/proc/${pid}/cwd`).catch(() => '');
    if (folder !== '' && existsSync(folder) && !existsSync(join(folder, 'input.pdf')))
      waiting.push({ pid, folder });
  }
  return waiting;
}

/**
 * `toolsAtWork(text)` once it is empty, or what it still lists after `graceMs`: a tool killed as its
 * start was on its way is killed once its pid is known, some milliseconds later.
 */
export async function toolsLeftAtWork(text: string, graceMs = 3_000): Promise<string[]> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const left = await toolsAtWork(text);
    if (left.length === 0 || Date.now() >= deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function mentioning(text: string): Promise<{ pid: string; cmdline: string }[]> {
  const found: { pid: string; cmdline: string }[] = [];
  for (const pid of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(text)) found.push({ pid, cmdline });
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

export interface ToolProcess {
  pid: number;
  /**
   * Its parent's pid (/proc/<pid>/stat field 4): the server's tool launcher for a short tool, the
   * server for a long-lived one (an OCR process, LibreOffice, Chromium), a tool for the tool's children.
   */
  parent: number;
  /** Its process group (field 5). */
  group: number;
  /** Its command line, arguments joined by spaces. */
  command: string;
}

/** A process's stat fields after its command name (which may hold spaces); undefined once gone or a zombie. */
async function statFields(pid: string): Promise<string[] | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // A zombie has ended; only its parent (or PID 1, for an orphan) has yet to reap it.
  return stat === '' || fields[0] === 'Z' || fields[0] === 'X' ? undefined : fields;
}

async function running(match: (pid: string, fields: string[]) => Promise<boolean>): Promise<ToolProcess[]> {
  const found: ToolProcess[] = [];
  for (const pid of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const fields = await statFields(pid);
    if (fields === undefined || !(await match(pid, fields))) continue;
    const command = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ');
    found.push({
      pid: Number(pid),
      parent: Number(fields[1]),
      group: Number(fields[2]),
      command: command.trim(),
    });
  }
  return found;
}

/** The parent's pid of `pid` (field 4 of its stat); undefined once it is gone. */
export async function parentOf(pid: number): Promise<number | undefined> {
  const fields = await statFields(String(pid));
  return fields === undefined ? undefined : Number(fields[1]);
}

/**
 * Running processes at work under `folder`: their working folder inside it (every tool runs in its
 * request's work folder, and its children inherit it), or their command line naming it.
 */
export function processesUnder(folder: string): Promise<ToolProcess[]> {
  return running(async (pid) => {
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => '');
    if (cwd === folder || cwd.startsWith(`${folder}/`)) return true;
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).includes(folder);
  });
}

/** Running processes of any of `groups` (process group ids). */
export function processesInGroups(groups: ReadonlySet<number>): Promise<ToolProcess[]> {
  return running(async (_pid, fields) => groups.has(Number(fields[2])));
}
