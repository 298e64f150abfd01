// Work areas, one per process, and their reclaiming: a process's start (and then its periodic sweep)
// removes the areas of processes no longer running, in its own data folder and wherever the registry
// says, kills what still carries a dead process's tool mark, and never touches a running process's
// area. Real processes throughout: this one, its parent, ones that ended, and a pid alive with another
// start time (a reused pid). Each test has a registry folder of its own.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOOL_MARK_VARIABLE } from '../processes/marked-processes.js';
import { startTimeOf, thisProcess } from '../processes/process-identity.js';
import { type WorkAreaRecord, WorkAreaRegistry } from './work-area-registry.js';
import { WorkDirs } from './work-dirs.js';

/** The pid of a process that ran and has exited. */
async function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid as number;
}

/** True while `pid` runs; a zombie has ended. */
async function running(pid: number): Promise<boolean> {
  return (await startTimeOf(pid)) !== undefined;
}

async function until(condition: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 200 && !(await condition()); i++) await new Promise((r) => setTimeout(r, 25));
  return condition();
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone, as it should be.
  }
}

let root: string;
let registryDir: string;
const opened: WorkDirs[] = [];
const started: ChildProcess[] = [];
/** Processes to kill after a failed test, whatever their group. */
const strays: number[] = [];

async function open(dataDir: string, options: { sweepIntervalMs?: number; exclusive?: boolean } = {}) {
  const dirs = await WorkDirs.open(dataDir, { registryDir, ...options });
  opened.push(dirs);
  return dirs;
}

/** A record as a process that has died would have left it, for an area in `dataDir`. */
async function deadRecord(dataDir: string, toolMark = 'none'): Promise<WorkAreaRecord> {
  const self = await thisProcess();
  const pid = await endedPid();
  const area = join(dataDir, 'tmp-processes', `${pid}-${self.startTime}`);
  await mkdir(join(area, 'req-left'), { recursive: true });
  await writeFile(join(area, 'req-left', 'input.pdf'), 'left behind');
  return { ...self, pid, area, toolMark };
}

async function register(record: WorkAreaRecord): Promise<void> {
  const registry = await WorkAreaRegistry.open(registryDir);
  if (typeof registry === 'string') throw new Error(registry);
  await registry.register(record);
}

async function exists(path: string): Promise<boolean> {
  return readdir(path).then(
    () => true,
    () => false,
  );
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'pdn-work-dirs-'));
  registryDir = join(root, 'registry');
});

afterEach(async () => {
  for (const dirs of opened.splice(0)) await dirs.close();
  for (const child of started.splice(0)) if (child.pid !== undefined) kill(-child.pid);
  for (const pid of strays.splice(0)) kill(pid);
  await rm(root, { recursive: true, force: true });
});

describe('WorkDirs in its own data folder', () => {
  it('keeps the areas of running processes, removes the others, and makes its own empty', async () => {
    const dataDir = join(root, 'data');
    const parent = join(dataDir, 'tmp-processes');
    const self = await thisProcess();
    const parentStart = await startTimeOf(process.ppid);
    const areas: [name: string, kept: boolean][] = [
      [`${process.ppid}-${parentStart}`, true],
      // An earlier version's name, the pid alone: kept while that pid runs.
      [String(process.ppid), true],
      [String(await endedPid()), false],
      [`${await endedPid()}-${self.startTime}`, false],
      // The parent's pid with another start time: a process that had the pid before it.
      [`${process.ppid}-1`, false],
      ['not-a-pid', false],
    ];
    for (const [name] of areas) {
      await mkdir(join(parent, name, 'req-left'), { recursive: true });
      await writeFile(join(parent, name, 'req-left', 'input.pdf'), 'left behind');
    }

    const own = await open(dataDir);

    const kept = areas.filter(([, keep]) => keep).map(([name]) => name);
    expect(own.area).toBe(join(parent, `${process.pid}-${self.startTime}`));
    expect((await readdir(parent)).sort()).toEqual([...kept, `${process.pid}-${self.startTime}`].sort());
    expect(await readdir(join(parent, String(process.ppid), 'req-left'))).toEqual(['input.pdf']);
    expect(await readdir(own.area)).toEqual([]);
    const dir = await own.create();
    expect(dir.startsWith(join(own.area, 'req-'))).toBe(true);
  });

  it('as the data folder’s only process, also removes the single work folder of earlier versions', async () => {
    const dataDir = join(root, 'data');
    await mkdir(join(dataDir, 'tmp', 'req-left'), { recursive: true });
    await open(dataDir, { exclusive: true });
    expect(await exists(join(dataDir, 'tmp'))).toBe(false);
  });

  it('removes its area and its record when closed', async () => {
    const own = await WorkDirs.open(join(root, 'data'), { registryDir });
    await own.create();
    expect(await readdir(registryDir)).toHaveLength(1);
    await own.close();
    await own.close();
    expect(await exists(own.area)).toBe(false);
    expect(await readdir(registryDir)).toEqual([]);
  });
});

describe('WorkDirs and the registry: dead processes on any data folder', () => {
  it('reclaims the area of a registered process no longer running, on another data folder', async () => {
    const dead = await deadRecord(join(root, 'a'));
    await register(dead);
    await open(join(root, 'b'));
    expect(await exists(dead.area)).toBe(false);
    expect((await readdir(registryDir)).filter((name) => name.startsWith(`${dead.pid}-`))).toEqual([]);
  });

  it.each<[string, (record: WorkAreaRecord) => Promise<WorkAreaRecord>, boolean]>([
    [
      'this process’s parent, running',
      async (r) => ({ ...r, pid: process.ppid, startTime: (await startTimeOf(process.ppid)) ?? '' }),
      true,
    ],
    [
      'a process of another pid namespace, which this one cannot see',
      async (r) => ({ ...r, pidNamespace: 'pid:[1]' }),
      true,
    ],
    [
      'a process of an earlier boot, whatever its pid',
      async (r) => ({
        ...r,
        pid: process.ppid,
        startTime: (await startTimeOf(process.ppid)) ?? '',
        bootId: 'earlier',
      }),
      false,
    ],
  ])('judges the record of %s', async (_name, change, kept) => {
    const record = await change(await deadRecord(join(root, 'a')));
    await register(record);
    await open(join(root, 'b'));
    expect(await exists(record.area)).toBe(kept);
  });

  it('kills what still carries a dead process’s tool mark, its children and its group included', async () => {
    const mark = `test-${process.pid}-${Date.now()}`;
    const pidFile = join(root, 'pids');
    // A tool whose child left its group and one whose child cleared its environment: the mark finds
    // the first, the group the second.
    const tool = spawn(
      'sh',
      ['-c', `setsid sleep 300 & echo $! >> ${pidFile}; env -i sleep 301 & echo $! >> ${pidFile}; wait`],
      { detached: true, stdio: 'ignore', env: { PATH: process.env.PATH, [TOOL_MARK_VARIABLE]: mark } },
    );
    started.push(tool);
    expect(
      await until(async () => (await readFile(pidFile, 'utf8').catch(() => '')).split('\n').length === 3),
    ).toBe(true);
    const pids = [tool.pid as number, ...(await readFile(pidFile, 'utf8')).trim().split('\n').map(Number)];
    strays.push(...pids);
    const dead = await deadRecord(join(root, 'a'), mark);
    await register(dead);

    await open(join(root, 'b'));

    for (const pid of pids) expect(await until(async () => !(await running(pid))), `pid ${pid}`).toBe(true);
    expect(await exists(dead.area)).toBe(false);
  });

  it('keeps looking while it runs: an area left after its start is reclaimed by a later sweep', async () => {
    await open(join(root, 'b'), { sweepIntervalMs: 50 });
    const dead = await deadRecord(join(root, 'a'));
    await register(dead);
    expect(await until(async () => !(await exists(dead.area)))).toBe(true);
  });

  it('writes its record again when a temp-folder cleaner removed it', async () => {
    const own = await open(join(root, 'b'), { sweepIntervalMs: 50 });
    await rm(registryDir, { recursive: true, force: true });
    expect(await until(async () => (await readdir(registryDir).catch(() => [])).length === 1)).toBe(true);
    await own.sweep();
    expect(await exists(own.area)).toBe(true);
  });

  it('refuses a registry folder others may write to, and still reclaims its own data folder', async () => {
    await mkdir(registryDir, { mode: 0o700 });
    await chmod(registryDir, 0o777);
    const dead = await deadRecord(join(root, 'a'));
    await writeFile(join(registryDir, 'planted.json'), JSON.stringify(dead));
    const local = await deadRecord(join(root, 'b'));
    await open(join(root, 'b'));
    expect(await exists(dead.area)).toBe(true);
    expect(await exists(local.area)).toBe(false);
  });

  it('never deletes a folder a record names unless it is a work area', async () => {
    const precious = join(root, 'precious');
    await mkdir(precious);
    const dead = await deadRecord(join(root, 'a'));
    await mkdir(registryDir, { recursive: true, mode: 0o700 });
    await writeFile(join(registryDir, `${dead.pid}-x.json`), JSON.stringify({ ...dead, area: precious }));
    await open(join(root, 'b'));
    expect(await exists(precious)).toBe(true);
    expect(await readdir(registryDir)).toHaveLength(1);
  });
});
