import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { runTool, ToolAbortedError, ToolOutOfSpaceError, ToolTimeoutError } from './run-tool.js';
import { ToolReport, withToolReport } from './tool-report.js';

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'pdn-run-tool-'));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

/**
 * True while the process runs. A killed grandchild is a zombie until init reaps it, which here takes
 * up to 2 s (the machine's PID 1 reaps in rounds): killed it is, so a zombie counts as gone, as does
 * no process at all. Signal 0 would count the zombie alive.
 */
async function running(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // "pid (comm) state ...": comm may hold spaces, so the state is read after its ')'.
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

async function waitUntilGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && (await running(pid)); i++)
    await new Promise((resolve) => setTimeout(resolve, 20));
  return !(await running(pid));
}

describe('runTool', () => {
  it("writes the tool's exit, time and stderr to the job's log at debug level, nothing raw, and adds up its time", async () => {
    const lines: string[] = [];
    const report = new ToolReport(
      createLogger('debug', (line) => lines.push(line)).child({ job_id: 'job-1' }),
    );
    // The launcher already runs, started outside any job, as a server starts it with its first tool.
    await runTool('true', [], { cwd, timeoutMs: 10_000 });
    const result = await withToolReport(report, async () => {
      await runTool('sh', ['-c', 'exit 0'], { cwd, timeoutMs: 10_000 });
      return runTool('sh', ['-c', 'echo warning: odd xref >&2; exit 3'], { cwd, timeoutMs: 10_000 });
    });
    expect(result.exitCode).toBe(3);
    expect(report.times()).toEqual({ sh: { runs: 2, ms: expect.any(Number) } });
    lines.shift();
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        level: 'debug',
        job_id: 'job-1',
        msg: 'tool finished',
        tool: 'sh',
        args: ['-c', 'echo warning: odd xref >&2; exit 3'],
        exit_code: 3,
        ms: expect.any(Number),
        stderr: 'warning: odd xref\n',
      }),
    ]);
  });

  it.each([
    ['exit 0 with output', 'echo out; echo err >&2', 0, 'out\n', 'err\n'],
    ['a non-zero exit is a result, not an error', 'exit 3', 3, '', ''],
    ['a crash reports 128 + the signal (SIGSEGV 139)', 'kill -SEGV $$', 139, '', ''],
  ])('%s', async (_name, script, exitCode, stdout, stderr) => {
    const result = await runTool('sh', ['-c', script], { cwd, timeoutMs: 10_000 });
    expect(result).toEqual({ exitCode, stdout, stderr });
  });

  it('runs in the given folder with a minimal environment that holds none of the server secrets', async () => {
    process.env.PDN_SIGNING_SECRET_FOR_TEST = 'do-not-leak';
    try {
      const result = await runTool('sh', ['-c', 'pwd; env'], { cwd, timeoutMs: 10_000, env: { EXTRA: '1' } });
      const [pwd, ...env] = result.stdout.trim().split('\n');
      expect(pwd).toBe(cwd);
      expect(env).toContain(`HOME=${cwd}`);
      expect(env).toContain(`TMPDIR=${cwd}`);
      expect(env).toContain('EXTRA=1');
      expect(result.stdout).not.toContain('do-not-leak');
    } finally {
      delete process.env.PDN_SIGNING_SECRET_FOR_TEST;
    }
  });

  it('runs the tool at a lower CPU priority than the server', async () => {
    const result = await runTool('sh', ['-c', 'cut -d" " -f19 /proc/$$/stat'], { cwd, timeoutMs: 10_000 });
    expect(Number(result.stdout.trim())).toBe(10);
  });

  it('keeps only the tail of very chatty output', async () => {
    const result = await runTool('sh', ['-c', 'head -c 1000000 /dev/zero | tr "\\0" x; echo END'], {
      cwd,
      timeoutMs: 10_000,
    });
    expect(result.stdout.length).toBe(64 * 1024);
    expect(result.stdout.endsWith('END\n')).toBe(true);
  });

  it('kills the whole process group on timeout, grandchildren included', async () => {
    const pidFile = join(cwd, 'grandchild.pid');
    const run = runTool('sh', ['-c', `sleep 30 & echo $! > ${pidFile}; wait`], { cwd, timeoutMs: 300 });
    await expect(run).rejects.toBeInstanceOf(ToolTimeoutError);
    const grandchild = Number(await readFile(pidFile, 'utf8'));
    expect(await waitUntilGone(grandchild)).toBe(true);
  });

  it('kills the tool when the caller aborts', async () => {
    const controller = new AbortController();
    const run = runTool('sleep', ['30'], { cwd, timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(run).rejects.toBeInstanceOf(ToolAbortedError);
  });

  it('does not start a tool for an already aborted request', async () => {
    const run = runTool('touch', ['started'], { cwd, timeoutMs: 10_000, signal: AbortSignal.abort() });
    await expect(run).rejects.toBeInstanceOf(ToolAbortedError);
    expect(await readdir(cwd)).toEqual([]);
  });

  // A tool that says the disk is full fails as such, whatever its exit code.
  it.each([
    ['ENOSPC, exit 2', "echo 'qpdf: out.pdf: write: No space left on device' >&2; exit 2", 'ENOSPC'],
    ['ENOSPC, exit 0', "echo 'write error: No space left on device' >&2", 'ENOSPC'],
    ['EDQUOT', "echo 'Disk quota exceeded' >&2; exit 1", 'EDQUOT'],
  ])('reports a full disk (%s) as ToolOutOfSpaceError', async (_name, script, code) => {
    const run = runTool('sh', ['-c', script], { cwd, timeoutMs: 10_000 });
    await expect(run).rejects.toBeInstanceOf(ToolOutOfSpaceError);
    await expect(run).rejects.toMatchObject({ code });
  });

  it('rejects with the spawn error when the binary does not exist', async () => {
    await expect(runTool('pdn-no-such-tool', [], { cwd, timeoutMs: 10_000 })).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});
