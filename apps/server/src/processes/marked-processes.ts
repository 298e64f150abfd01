// Finding a process's tools after it has gone. Every tool is started with `PDN_TOOL_OF=<mark>` in its
// environment, a mark unique to the process that started it (tool-reaper.ts), and its children inherit
// it as they inherit the rest of the environment: OCRmyPDF's tesseract and Ghostscript runs carry it
// too, though they are OCRmyPDF's children, not ours. Once their starter is dead, nothing else knows
// them: its pid is gone, they have been handed to PID 1, and the kernel's parent-death signal reached
// only the tool it started (children do not inherit it). /proc/<pid>/environ still shows the mark.
import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** The environment variable that carries the mark. */
export const TOOL_MARK_VARIABLE = 'PDN_TOOL_OF';

export interface MarkedProcess {
  pid: number;
  /** Its process group (field 5 of /proc/<pid>/stat). */
  group: number;
}

/** Field 5 of /proc/<pid>/stat, read after the command name (which may hold spaces); 0 once gone. */
async function groupOf(pid: string): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2] ?? 0) || 0;
}

/**
 * Running processes whose environment, as they were started, holds `PDN_TOOL_OF=<mark>`. Only this
 * user's processes can be read, which are the only ones a process of this user can have started.
 * A zombie shows an empty environment: it has ended, whoever has yet to reap it.
 */
export async function markedProcesses(mark: string): Promise<MarkedProcess[]> {
  const entry = `${TOOL_MARK_VARIABLE}=${mark}`;
  const pids = (await readdir('/proc').catch(() => [] as string[])).filter((name) => /^\d+$/.test(name));
  const found = await Promise.all(
    pids.map(async (name): Promise<MarkedProcess | undefined> => {
      const environ = await readFile(`/proc/${name}/environ`, 'latin1').catch(() => '');
      if (!environ.split('\0').includes(entry)) return undefined;
      return { pid: Number(name), group: await groupOf(name) };
    }),
  );
  return found.filter((process) => process !== undefined);
}

function kill(pid: number): boolean {
  try {
    process.kill(pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}

/** Looks again this long after a look that found something, for what was forking meanwhile. */
const ROUND_GAP_MS = 25;
/** A bound on the looks: a process that forks faster than it is killed is not a tool of ours. */
const MAX_ROUNDS = 40;

/**
 * Kills every process marked `mark`, each with its process group (a tool's child that cleared its
 * environment but stayed in the tool's group goes too), and looks again until two looks in a row find
 * none: a process that forked between a look and a kill leaves a child the next look finds. Never
 * signals this process's own group. Answers how many processes it killed.
 */
export async function killMarked(mark: string): Promise<number> {
  const ownGroup = await groupOf(String(process.pid));
  const killed = new Set<number>();
  let quiet = 0;
  for (let round = 0; round < MAX_ROUNDS && quiet < 2; round++) {
    const marked = await markedProcesses(mark);
    quiet = marked.length === 0 ? quiet + 1 : 0;
    for (const { pid, group } of marked) {
      if (pid === process.pid) continue;
      if (kill(pid)) killed.add(pid);
      if (group > 1 && group !== ownGroup) kill(-group);
    }
    await sleep(ROUND_GAP_MS);
  }
  return killed.size;
}
