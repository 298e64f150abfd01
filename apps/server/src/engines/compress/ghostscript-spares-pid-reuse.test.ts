// A Ghostscript that died while it waited (the machine's memory, an operator, its launcher's death)
// is ended again when a call finds it, when nobody took it for IDLE_MS, or at close: each time, its
// process group is killed by the pid it had. Linux gives a freed pid to a later process (here after
// 32768 processes), and every tool a server starts leads a group of its own: so that kill can hit
// another user's tool, or a warm LibreOffice. This gives the dead spare's pid to a process of another
// group at once, as the kernel would after it has gone round its pids, and holds that it survives.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { access, constants, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectTools } from '../tools.js';
import type { WorkFolders } from '../types.js';
import { GhostscriptSpares } from './ghostscript-spares.js';
import { ghostscriptArgs, pdfwriteArgs } from './presets.js';
import { pdfwriteGhostscripts } from './test-ghostscripts.js';

const CORPUS = new URL('../../../../../packages/fixtures/corpus/', import.meta.url).pathname;
/** Where the kernel reads the last pid it gave: writing it picks the next one (root only). */
const LAST_PID = '/proc/sys/kernel/ns_last_pid';
const { ghostscript: gs } = await detectTools();
const canPickPids = await access(LAST_PID, constants.W_OK).then(
  () => true,
  () => false,
);

let dir: string;
const folders: WorkFolders = {
  create: (prefix) => mkdtemp(join(dir, prefix)),
  remove: (folder) => rm(folder, { recursive: true, force: true }),
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-gs-pid-reuse-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The pid of the Ghostscript waiting in this test's folders, once there is one. */
async function waitingGhostscript(): Promise<number> {
  for (let tries = 0; tries < 100; tries += 1) {
    const waiting = (await pdfwriteGhostscripts()).find(({ cwd }) => cwd.startsWith(dir));
    if (waiting !== undefined) return waiting.pid;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no Ghostscript waited');
}

/** A process leading a group of its own, started with `pid` where the kernel lets us pick it. */
async function groupLeaderWithPid(pid: number): Promise<ChildProcess> {
  for (let tries = 0; tries < 20; tries += 1) {
    await writeFile(LAST_PID, String(pid - 1));
    const child = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    if (child.pid === pid) return child;
    child.kill('SIGKILL');
  }
  throw new Error(`pid ${pid} went to another process each time`);
}

describe.skipIf(gs === undefined || !canPickPids || !existsSync('/proc'))(
  'a Ghostscript that died while it waited',
  () => {
    it("is not killed again by its pid, which may be another process's by then", {
      timeout: 60_000,
    }, async () => {
      const spares = new GhostscriptSpares(gs?.path ?? 'gs', folders);
      const rewrite = () => {
        const inputPath = join(CORPUS, 'libreoffice-writer.pdf');
        const outputPath = join(dir, 'output.pdf');
        return spares.rewrite(
          {
            args: pdfwriteArgs('medium', 'default'),
            inputPath,
            pageCount: 1,
            outputPath,
            asked: ghostscriptArgs('medium', inputPath, outputPath, 'default', 1),
          },
          { timeoutMs: 30_000 },
        );
      };
      await rewrite();
      const dead = await waitingGhostscript();
      process.kill(dead, 'SIGKILL');
      while (existsSync(`/proc/${dead}`)) await new Promise((resolve) => setTimeout(resolve, 20));
      // Its end reaches the server through the launcher.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const other = await groupLeaderWithPid(dead);
      const otherEnded = new Promise<NodeJS.Signals | null>((resolve) =>
        other.on('exit', (_code, signal) => resolve(signal)),
      );
      try {
        // The call finds the dead one, says so, and runs in one of its own.
        expect((await rewrite()).exitCode).toBe(0);
        await spares.close();
        const signal = await Promise.race([
          otherEnded,
          new Promise((resolve) => setTimeout(() => resolve('still running'), 500)),
        ]);
        expect(signal).toBe('still running');
      } finally {
        other.kill('SIGKILL');
      }
    });
  },
);
