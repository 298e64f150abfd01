// Which process a record names, beyond its pid. Pids are reused: a record that says only "pid 4242"
// may, after a crash, name an unrelated process that got the number later, and a sweeper trusting it
// would keep a dead process's folder forever, or take a live one's. So a process is named by its pid,
// its start time (field 22 of /proc/<pid>/stat, clock ticks since boot: two processes of one boot never
// share both) and the boot it ran in; and the pid namespace, since only a process of the same
// namespace can look the pid up (containers sharing a temp folder see each other's records, not each
// other's processes).
import { readFile, readlink } from 'node:fs/promises';

export interface ProcessIdentity {
  pid: number;
  /** Clock ticks after boot at which it started; empty where /proc cannot say (not Linux). */
  startTime: string;
  /** /proc/sys/kernel/random/boot_id: a new one at every boot. */
  bootId: string;
  /** `pid:[4026531836]`, from /proc/self/ns/pid. */
  pidNamespace: string;
}

/** The fields of /proc/<pid>/stat after the command name, which may itself hold spaces and ')'. */
async function statFields(pid: number): Promise<string[] | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Field 22 of /proc/<pid>/stat, the start time; undefined when the process is gone (or a zombie). */
export async function startTimeOf(pid: number): Promise<string | undefined> {
  const fields = await statFields(pid);
  // fields[0] is the state (field 3): a zombie has ended, whoever has yet to reap it.
  if (fields === undefined || fields[0] === 'Z' || fields[0] === 'X') return undefined;
  return fields[19];
}

async function firstLine(path: string): Promise<string> {
  return (await readFile(path, 'utf8').catch(() => '')).trim();
}

let own: Promise<ProcessIdentity> | undefined;

/** This process's identity, read once. */
export function thisProcess(): Promise<ProcessIdentity> {
  own ??= (async () => ({
    pid: process.pid,
    startTime: (await startTimeOf(process.pid)) ?? '',
    bootId: await firstLine('/proc/sys/kernel/random/boot_id'),
    pidNamespace: await readlink('/proc/self/ns/pid').catch(() => ''),
  }))();
  return own;
}

/** Whether signal 0 reaches `pid`: the fallback where /proc cannot tell a reused pid apart. */
function signalReaches(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process `who` names still runs: `'yes'`, `'no'`, or `'unknown'` for a process of another
 * pid namespace, which this one cannot see (a sweeper leaves its things alone).
 */
export async function stillRunning(who: ProcessIdentity): Promise<'yes' | 'no' | 'unknown'> {
  const self = await thisProcess();
  if (who.pidNamespace !== self.pidNamespace) return 'unknown';
  // Nothing of another boot runs now, whatever its pid.
  if (who.bootId !== self.bootId) return 'no';
  if (self.startTime === '') return signalReaches(who.pid) ? 'yes' : 'no';
  return (await startTimeOf(who.pid)) === who.startTime ? 'yes' : 'no';
}
