// Tools die with the process that started them, however it dies. A real Node process stands for the
// server: it runs a tool through the built runTool (a shell with children of its own, as OCRmyPDF has
// its tesseract runs), says the pids, and is killed with SIGKILL, which no handler of its own can
// answer. What must be gone then: the tool (the kernel's parent-death signal) and the tool's children
// (the watchdog, as the kernel's signal is not inherited).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTool } from '../engines/run-tool.js';
import { findSetpriv } from './parent-death.js';
import { startTimeOf } from './process-identity.js';
import { toolReaperPid } from './tool-reaper.js';

const RUN_TOOL = fileURLToPath(new URL('../../dist/engines/run-tool.js', import.meta.url));
const TOOL_REAPER = fileURLToPath(new URL('../../dist/processes/tool-reaper.js', import.meta.url));

/**
 * The stand-in server: starts `sh`, which starts two sleeps and prints their pids; then, when asked,
 * ends a worker thread (the parent-death signal belongs to the thread that forked, so one ending must
 * not kill a tool) or kills its watchdog; prints `pids <tool> <child> <child> <watchdog>` and waits.
 */
const SERVER = `
import { runTool } from ${JSON.stringify(RUN_TOOL)};
import { toolReaperPid } from ${JSON.stringify(TOOL_REAPER)};
import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
const [, cwd, mode] = process.argv;
const read = () => { try { return readFileSync(cwd + '/pids', 'utf8'); } catch { return ''; } };
runTool('sh', ['-c', 'sleep 300 & a=$!; sleep 301 & echo $$ $a $! > pids.part; mv pids.part pids; wait'], { cwd, timeoutMs: 600000 }).catch(() => {});
while (read() === '') await new Promise((r) => setTimeout(r, 10));
if (mode === 'thread') await new Promise((resolve) => new Worker('0', { eval: true }).once('exit', resolve));
const watchdog = toolReaperPid();
if (mode === 'no-watchdog') process.kill(watchdog, 'SIGKILL');
console.log('pids', read().trim(), watchdog);
setInterval(() => {}, 1000);
`;

let cwd: string;
let server: ChildProcess | undefined;
const strays: number[] = [];

/** True while `pid` runs; a killed process that nobody reaped yet (a zombie) has ended. */
async function running(pid: number): Promise<boolean> {
  return (await startTimeOf(pid)) !== undefined;
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && (await running(pid)); i++) await new Promise((r) => setTimeout(r, 25));
  return !(await running(pid));
}

/** Starts the stand-in server and answers its tool's pid, the tool's two children, and the watchdog. */
async function startServer(mode: 'plain' | 'thread' | 'no-watchdog'): Promise<number[]> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SERVER, cwd, mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  server = child;
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    if (!line.startsWith('pids ')) continue;
    const pids = line.split(' ').slice(1).map(Number);
    strays.push(...pids);
    return pids;
  }
  throw new Error('the stand-in server ended without starting its tool');
}

async function killServer(): Promise<void> {
  const child = server;
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'pdn-spawn-tool-'));
});

afterEach(async () => {
  await killServer();
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone, as it should be.
    }
  }
  await rm(cwd, { recursive: true, force: true });
});

describe.skipIf(findSetpriv() === null)('a tool of a process killed with SIGKILL', () => {
  it('dies with it, and so do its children', async () => {
    const [tool, ...rest] = await startServer('plain');
    const children = rest.slice(0, 2);
    for (const pid of [tool, ...children]) expect(await running(pid as number)).toBe(true);
    await killServer();
    for (const pid of [tool, ...children]) expect(await gone(pid as number), `pid ${pid}`).toBe(true);
  });

  it('lives on while the process does, after a worker thread of it has ended', async () => {
    const [tool, ...rest] = await startServer('thread');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await running(tool as number)).toBe(true);
    await killServer();
    for (const pid of [tool, ...rest.slice(0, 2)]) expect(await gone(pid as number)).toBe(true);
  });

  it('dies by the kernel alone when the watchdog is gone too (its children then need the watchdog)', async () => {
    const [tool] = await startServer('no-watchdog');
    await killServer();
    expect(await gone(tool as number)).toBe(true);
  });
});

describe('the watchdog', () => {
  it('comes back with the next tool when it was killed while its process runs', async () => {
    await runTool('true', [], { cwd, timeoutMs: 10_000 });
    const first = toolReaperPid() as number;
    expect(await running(first)).toBe(true);
    process.kill(first, 'SIGKILL');
    expect(await gone(first)).toBe(true);
    await runTool('true', [], { cwd, timeoutMs: 10_000 });
    expect(toolReaperPid()).not.toBe(first);
    expect(await running(toolReaperPid() as number)).toBe(true);
  });
});
