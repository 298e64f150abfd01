// Work areas of processes sharing one data folder (issue #16: "each process has its own temp folder"):
// a process's start removes the areas of processes no longer running, never a running one's, and
// makes its own, empty, named for its pid. Real processes: this one, its parent, and one that ended.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
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
