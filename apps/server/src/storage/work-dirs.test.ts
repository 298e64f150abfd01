// Work areas of processes sharing one data folder (issue #16: "each process has its own temp folder"):
// a process's start removes the areas of processes no longer running, never a running one's, and
// makes its own, empty, named for its pid. Real processes: this one, its parent, and one that ended.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkDirs } from './work-dirs.js';

/** The pid of a process that ran and has exited. */
async function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid as number;
}

describe('WorkDirs.openOwn', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pdn-work-dirs-'));
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps the areas of running processes, removes the others, and makes its own empty', async () => {
    const parent = join(dataDir, 'tmp-processes');
    const areas: [name: string, kept: boolean][] = [
      [String(process.ppid), true],
      [String(await endedPid()), false],
      [String(process.pid), false],
      ['not-a-pid', false],
    ];
    for (const [name] of areas) {
      await mkdir(join(parent, name, 'req-left'), { recursive: true });
      await writeFile(join(parent, name, 'req-left', 'input.pdf'), 'left behind');
    }

    const own = await WorkDirs.openOwn(dataDir);

    const kept = areas.filter(([, keep]) => keep).map(([name]) => name);
    expect((await readdir(parent)).sort()).toEqual([...kept, String(process.pid)].sort());
    expect(await readdir(join(parent, String(process.ppid), 'req-left'))).toEqual(['input.pdf']);
    expect(await readdir(join(parent, String(process.pid)))).toEqual([]);
    const dir = await own.create();
    expect(dir.startsWith(join(parent, String(process.pid), 'req-'))).toBe(true);
  });
});

describe('WorkDirs.reserve', () => {
  let dataDir: string;
  let workDirs: WorkDirs;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pdn-work-dirs-'));
    workDirs = await WorkDirs.open(dataDir);
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('names a folder without making it, and removing one never made does nothing', async () => {
    const folder = workDirs.reserve();
    expect(folder.path.startsWith(join(dataDir, 'tmp', 'req-'))).toBe(true);
    expect(existsSync(folder.path)).toBe(false);
    await folder.remove();
    expect(await readdir(join(dataDir, 'tmp'))).toEqual([]);
  });

  it('makes the folder once, private to this user, however often asked', async () => {
    const folder = workDirs.reserve();
    await Promise.all([folder.make(), folder.make()]);
    await folder.make();
    expect((await stat(folder.path)).mode & 0o777).toBe(0o700);
    await writeFile(join(folder.path, 'upload-1'), 'kept until removed');
    await folder.remove();
    expect(await readdir(join(dataDir, 'tmp'))).toEqual([]);
  });

  it('leaves nothing behind when removed while being made', async () => {
    const folder = workDirs.reserve();
    void folder.make();
    await folder.remove();
    expect(await readdir(join(dataDir, 'tmp'))).toEqual([]);
  });

  it('gives every request a folder of its own', () => {
    const paths = new Set(Array.from({ length: 100 }, () => workDirs.reserve().path));
    expect(paths.size).toBe(100);
  });
});
