// Finding and killing a dead process's tools by the mark in their environment: what carries the mark
// goes, wherever it is (a child that left the tool's group, with setsid), what shares a marked
// process's group goes too (a child that cleared its environment), and nothing else: not a process
// with another mark, not the killer's own group. Both the function and the watchdog's Node pass
// (reap-tools.js, run as the watchdog runs it).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { killMarked, markedProcesses, TOOL_MARK_VARIABLE } from './marked-processes.js';
import { startTimeOf } from './process-identity.js';

const REAP_TOOLS = fileURLToPath(new URL('../../dist/processes/reap-tools.js', import.meta.url));

let dir: string;
const started: ChildProcess[] = [];
const strays: number[] = [];

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone, as it should be.
  }
}

async function running(pid: number): Promise<boolean> {
  return (await startTimeOf(pid)) !== undefined;
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && (await running(pid)); i++) await new Promise((r) => setTimeout(r, 25));
  return !(await running(pid));
}

/**
 * A tool marked `mark` in a group of its own, with a child that left the group (setsid) and one that
 * cleared its environment; answers [tool, left, cleared].
 */
async function markedTool(mark: string): Promise<number[]> {
  const pids = join(dir, `${mark}.pids`);
  const tool = spawn(
    'sh',
    [
      '-c',
      `setsid sleep 300 & a=$!; env -i sleep 301 & echo $a $! > ${pids}.part; mv ${pids}.part ${pids}; wait`,
    ],
    { detached: true, stdio: 'ignore', env: { PATH: process.env.PATH, [TOOL_MARK_VARIABLE]: mark } },
  );
  started.push(tool);
  for (let i = 0; i < 400; i++) {
    const text = await readFile(pids, 'utf8').catch(() => '');
    if (text !== '') {
      const all = [tool.pid as number, ...text.trim().split(' ').map(Number)];
      strays.push(...all);
      return all;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the marked tool did not start');
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-marked-'));
});

afterEach(async () => {
  for (const child of started.splice(0)) if (child.pid !== undefined) kill(-child.pid);
  for (const pid of strays.splice(0)) kill(pid);
  await rm(dir, { recursive: true, force: true });
});

describe('processes marked as a dead process’s tools', () => {
  it('are found by their mark, a child that left the group included, and nothing else', async () => {
    const mark = randomUUID();
    const [tool, left, cleared] = await markedTool(mark);
    const other = await markedTool(randomUUID());
    const found = (await markedProcesses(mark)).map((process) => process.pid).sort();
    expect(found).toEqual([tool, left].sort());
    expect(found).not.toContain(cleared);
    expect(found.some((pid) => other.includes(pid))).toBe(false);
  });

  it.each([
    ['killMarked', (mark: string) => killMarked(mark)],
    [
      'the watchdog’s Node pass',
      (mark: string) => promisify(execFile)(process.execPath, [REAP_TOOLS, mark], { timeout: 60_000 }),
    ],
  ])('are all killed by %s, with their groups, and no other', async (_name, reap) => {
    const mark = randomUUID();
    const pids = await markedTool(mark);
    const other = await markedTool(randomUUID());
    await reap(mark);
    for (const pid of pids) expect(await gone(pid), `pid ${pid}`).toBe(true);
    for (const pid of other) expect(await running(pid), `pid ${pid}`).toBe(true);
  });
});
