// The launcher starts the server's short tools: what each tool prints and how it ends must reach the
// run that asked for it and no other, however many run at once; and a launcher that dies must fail
// the runs it carried, leave none of their processes behind, and be replaced by the next run.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTool } from '../engines/run-tool.js';
import { startTimeOf } from './process-identity.js';
import { toolLauncherPid } from './tool-launcher.js';

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'pdn-tool-launcher-'));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && (await startTimeOf(pid)) !== undefined; i++)
    await new Promise((resolve) => setTimeout(resolve, 25));
  return (await startTimeOf(pid)) === undefined;
}

describe('the tool launcher', () => {
  it('gives each of 60 tools run at once its own output and exit code', async () => {
    const runs = Array.from({ length: 60 }, (_, i) =>
      runTool('sh', ['-c', `printf 'out %s' ${i}; printf 'err %s' ${i} >&2; exit $((${i} % 7))`], {
        cwd,
        timeoutMs: 60_000,
      }),
    );
    const results = await Promise.all(runs);
    results.forEach((result, i) => {
      expect(result).toEqual({ exitCode: i % 7, stdout: `out ${i}`, stderr: `err ${i}` });
    });
  });

  it('passes bytes that are not text through unchanged', async () => {
    const result = await runTool('printf', ['\\303\\251\\000\\377'], { cwd, timeoutMs: 10_000 });
    expect(Buffer.from(result.stdout, 'utf8')).toEqual(Buffer.from('é\u0000\ufffd', 'utf8'));
  });

  it('fails the runs of a launcher that died, kills their processes, and comes back for the next', async () => {
    const running = runTool('sh', ['-c', 'sleep 300 & echo $! > child; echo $$ > tool; wait'], {
      cwd,
      timeoutMs: 600_000,
    });
    const read = (name: string) => readFile(join(cwd, name), 'utf8').catch(() => '');
    while ((await read('tool')) === '' || (await read('child')) === '')
      await new Promise((resolve) => setTimeout(resolve, 10));
    const tool = Number(await read('tool'));
    const child = Number(await read('child'));
    const launcher = toolLauncherPid() as number;
    expect(launcher).toBeGreaterThan(0);

    process.kill(launcher, 'SIGKILL');
    await expect(running).rejects.toThrow(/launcher ended/);
    // The tool by the kernel's parent-death signal, its child with the tool's group.
    expect(await gone(tool)).toBe(true);
    expect(await gone(child)).toBe(true);

    expect(await runTool('sh', ['-c', 'echo again'], { cwd, timeoutMs: 10_000 })).toMatchObject({
      exitCode: 0,
      stdout: 'again\n',
    });
    expect(toolLauncherPid()).not.toBe(launcher);
  });
});
