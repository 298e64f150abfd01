// The CLI on jobs: `--async` prints job ids and collects nothing, `pdn jobs list|get|wait|cancel` finds
// them again, each with the files it was for, a batch leaves no run-state file once done, and a batch
// cut short after submitting, by a SIGKILL of pdn or of the server, is collected by `--resume` without
// a job submitted twice, counted in the server's own jobs list; also when pdn is killed after sending,
// before any answer reached it (the Idempotency-Keys it kept are sent again).
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { labelledPdf } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../src/contract/checked-fetch.js';
import { answerCuttingProxy } from '../src/harness/answer-cutting-proxy.js';
import { startServer } from '../src/harness/server.js';
import { useServer } from '../src/harness/use-server.js';
import { exportedPdn, jsonOf, PDN_BIN } from './run-pdn.js';
import { useWorkspace } from './workspace.js';

const ctx = useServer();
const ws = useWorkspace();
let key: string;

const pdn = exportedPdn(ws, () => ({ key, baseUrl: ctx.server.baseUrl }));

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'cli-jobs', plan: 'enterprise' });
});

/** `count` PDFs of `pages` pages in `folder`, by relative path. */
async function pdfs(folder: string, count: number, pages = 1): Promise<string[]> {
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    files.push(`${folder}/doc${i}.pdf`);
    await ws.file(`${folder}/doc${i}.pdf`, await labelledPdf(`${folder}${i}`, pages));
  }
  return files;
}

/** Every job of `apiKey`'s user, as the server lists them (newest first). */
async function serverJobs(apiKey: string): Promise<{ id: string; status: string }[]> {
  const jobs: { id: string; status: string }[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const page = await ctx.call<{
      data: { jobs: { id: string; status: string }[]; next_cursor: string | null };
    }>(`/api/v1/jobs?${query}`, { key: apiKey });
    jobs.push(...page.json.data.jobs);
    cursor = page.json.data.next_cursor;
  } while (cursor !== null);
  return jobs;
}

describe('--async and pdn jobs', () => {
  it('--async submits and reports job ids; pdn jobs wait -o collects them', async () => {
    const files = await pdfs('async', 2);
    const submitted = await pdn(['compress', ...files, '--async', '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const report = jsonOf(submitted);
    expect(report.summary).toMatchObject({ total: 2, succeeded: 2 });
    const ids = report.results.map((item) => (item as { job_id?: string }).job_id ?? '');
    for (const [index, item] of report.results.entries()) {
      expect(item.data).toMatchObject({ id: ids[index], operation: 'compress' });
      expect(item.outputs).toEqual([]);
    }
    expect(await readdir(ws.path('async'))).toEqual(['doc0.pdf', 'doc1.pdf']);

    const waited = await pdn(['jobs', 'wait', ...ids, '-o', 'async-out', '--json']);
    expect(waited.code, waited.stderr).toBe(0);
    expect(jsonOf(waited).results.map((item) => item.outputs[0])).toEqual([
      { kind: 'file', path: 'async-out/doc0.compressed.pdf', bytes: expect.any(Number) },
      { kind: 'file', path: 'async-out/doc1.compressed.pdf', bytes: expect.any(Number) },
    ]);
    const written = await readFile(ws.path('async-out/doc0.compressed.pdf'));
    expect(written.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    // A person sees the id of each job, and its state.
    const human = await pdn(['jobs', 'get', ids[0] ?? '']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.text).toMatch(new RegExp(`^${ids[0]}\\s+compress\\s+succeeded`));
  });

  it('pdn jobs list says what each job was for: its files, by name', async () => {
    const merged = await pdn(['merge', 'async/doc0.pdf', 'async/doc1.pdf', '-o', 'for-list.pdf', '--json']);
    expect(merged.code, merged.stderr).toBe(0);
    const id = (jsonOf(merged).results[0] as { job_id?: string }).job_id ?? '';
    const listed = await pdn(['jobs', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    const line = listed.text.split('\n').find((text) => text.startsWith(id)) ?? '';
    expect(line).toMatch(new RegExp(`^${id}\\s+merge\\s+succeeded\\s+doc0\\.pdf, doc1\\.pdf\\s+ended `));
    const json = jsonOf(await pdn(['jobs', 'get', id, '--json']));
    expect(json.results[0]?.data).toMatchObject({
      inputs: [
        { name: 'doc0.pdf', size: expect.any(Number) },
        { name: 'doc1.pdf', size: expect.any(Number) },
      ],
    });
  });

  it('pdn jobs list shows them; cancel of an ended job changes nothing; an unknown id fails (exit 1)', async () => {
    const listed = await pdn(['jobs', 'list', '--status', 'succeeded', '--all', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const page = jsonOf(listed).results[0]?.data as { jobs: { id: string; status: string }[] } | undefined;
    const jobs = page?.jobs ?? [];
    expect(jobs.length).toBeGreaterThanOrEqual(2);
    expect(jobs.every((job) => job.status === 'succeeded')).toBe(true);

    const cancel = await pdn(['jobs', 'cancel', jobs[0]?.id ?? '', '--json']);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(jsonOf(cancel).results[0]?.data).toMatchObject({ status: 'succeeded' });

    const unknown = await pdn(['jobs', 'get', 'job_AAAAAAAAAAAAAAAAAAAAAA', '--json']);
    expect(unknown.code).toBe(1);
    expect(jsonOf(unknown).results[0]?.error).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('a batch reports each job id and leaves no run-state file', async () => {
    const files = await pdfs('plain', 3);
    const run = await pdn(['compress', ...files, '-o', 'plain-out', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const report = jsonOf(run);
    expect(report.results.every((item) => /^job_/.test((item as { job_id?: string }).job_id ?? ''))).toBe(
      true,
    );
    expect((await readdir(ws.path('plain-out'))).sort()).toEqual([
      'doc0.compressed.pdf',
      'doc1.compressed.pdf',
      'doc2.compressed.pdf',
    ]);
  });
});

type Recorded = Record<string, { key?: string; job?: string }>;

/** The run-state file's entries now (its submissions' keys and the jobs answered). */
async function stateEntries(folder: string): Promise<Recorded> {
  const names = await readdir(ws.path(folder)).catch(() => []);
  // The file itself, not the temp file it is being written to.
  const state = names.find((name) => /^\.pdn-run-.*\.json$/.test(name));
  if (state === undefined) return {};
  const text = await readFile(ws.path(folder, state), 'utf8').catch(() => '{}');
  return (JSON.parse(text) as { jobs?: Recorded }).jobs ?? {};
}

/** The run-state file's entries once `count` of them name a job (polled as the CLI writes it). */
async function recordedJobs(folder: string, count: number): Promise<Recorded> {
  let recorded: Recorded = {};
  const answered = () => Object.values(recorded).filter((entry) => entry.job !== undefined).length;
  for (let tries = 0; tries < 3000 && answered() < count; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    recorded = await stateEntries(folder);
  }
  return recorded;
}

describe('--resume', () => {
  it('a batch killed after submitting is collected by --resume, no job submitted twice', async () => {
    const resumeKey = await ctx.server.createKey({ user: 'cli-resume', plan: 'enterprise' });
    const files = await pdfs('killed', 6, 40);
    const args = ['compress', ...files, '-o', 'killed-out', '--level', 'high', '-c', '6', '--json'];
    const env = { PATH: process.env.PATH ?? '', PDN_API_KEY: resumeKey, PDN_BASE_URL: ctx.server.baseUrl };
    const child = spawn(process.execPath, [PDN_BIN, ...args], { cwd: ws.dir, env, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );

    // Kill it once its run-state file names all six jobs: every upload is the server's by then.
    const recorded = await recordedJobs('killed-out', 6);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(Object.keys(recorded)).toHaveLength(6);
    expect(await serverJobs(resumeKey)).toHaveLength(6);

    const resumed = await pdn([...args, '--resume'], { key: resumeKey });
    expect(resumed.code, resumed.stderr).toBe(0);
    const report = jsonOf(resumed);
    expect(report.summary.succeeded + report.summary.skipped).toBe(6);
    const recordedIds = Object.values(recorded)
      .map((entry) => entry.job)
      .sort();
    const collectedIds = report.results.flatMap((item) => (item as { job_id?: string }).job_id ?? []);
    expect(recordedIds).toEqual(expect.arrayContaining(collectedIds));
    // Still six jobs on the server: nothing was submitted again.
    expect(await serverJobs(resumeKey)).toHaveLength(6);
    // The run is done: its state file is gone, and every output is there.
    const left = await readdir(ws.path('killed-out'));
    expect(left.filter((name) => name.endsWith('.compressed.pdf')).sort()).toEqual(
      [0, 1, 2, 3, 4, 5].map((i) => `doc${i}.compressed.pdf`),
    );
    expect(left.filter((name) => name.startsWith('.pdn-run-'))).toEqual([]);
  });

  it('a batch killed after sending, before any answer, is resumed with the same keys: each input runs once', async () => {
    const resumeKey = await ctx.server.createKey({ user: 'cli-unanswered', plan: 'enterprise' });
    const files = await pdfs('unanswered', 2);
    const args = ['compress', ...files, '-o', 'unanswered-out', '-c', '2', '--json'];
    // The server gets both submissions and answers 202; the proxy keeps the answers from pdn.
    const proxy = await answerCuttingProxy(new URL(ctx.server.baseUrl), 2, 'hold');
    let recorded: Recorded;
    try {
      const env = { PATH: process.env.PATH ?? '', PDN_API_KEY: resumeKey, PDN_BASE_URL: proxy.url };
      const child = spawn(process.execPath, [PDN_BIN, ...args], { cwd: ws.dir, env, stdio: 'ignore' });
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.once('exit', (_code, signal) => resolve(signal)),
      );
      for (let tries = 0; tries < 6000 && proxy.cut() < 2; tries++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(proxy.cut()).toBe(2);
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      recorded = await stateEntries('unanswered-out');
    } finally {
      await proxy.close();
    }
    // Each input's key was kept before its request left; no answer was recorded.
    expect(Object.values(recorded)).toEqual([
      { key: expect.any(String), collected: false },
      { key: expect.any(String), collected: false },
    ]);
    const made = await serverJobs(resumeKey);
    expect(made).toHaveLength(2);

    const resumed = await pdn([...args, '--resume'], { key: resumeKey });
    expect(resumed.code, resumed.stderr).toBe(0);
    const report = jsonOf(resumed);
    expect(report.summary.succeeded).toBe(2);
    // The server answered the same keys with the jobs it had made: none made again.
    const collectedIds = report.results.map((item) => (item as { job_id?: string }).job_id).sort();
    expect(collectedIds).toEqual(made.map((job) => job.id).sort());
    expect(await serverJobs(resumeKey)).toHaveLength(2);
    const left = await readdir(ws.path('unanswered-out'));
    expect(left.filter((name) => name.endsWith('.compressed.pdf')).sort()).toEqual([
      'doc0.compressed.pdf',
      'doc1.compressed.pdf',
    ]);
    expect(left.filter((name) => name.startsWith('.pdn-run-'))).toEqual([]);
  });

  it('a server lost mid-collection (exit 6) keeps the run; --resume collects it once the server is back', async () => {
    const server = await startServer();
    try {
      const lostKey = await server.createKey({ user: 'cli-lost', plan: 'enterprise' });
      const files = await pdfs('lost', 4, 40);
      const args = ['compress', ...files, '-o', 'lost-out', '--level', 'high', '-c', '1', '--json'];
      const env = { PATH: process.env.PATH ?? '', PDN_API_KEY: lostKey, PDN_BASE_URL: server.baseUrl };
      const child = spawn(process.execPath, [PDN_BIN, ...args], {
        cwd: ws.dir,
        env,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
      });
      const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
      expect(Object.keys(await recordedJobs('lost-out', 4))).toHaveLength(4);
      await server.signal('SIGKILL');
      expect(await exited).toBe(6);
      const stopped = JSON.parse(stdout) as { summary: { succeeded: number } };
      expect(stopped.summary.succeeded).toBeLessThan(4);
      expect((await readdir(ws.path('lost-out'))).some((name) => name.startsWith('.pdn-run-'))).toBe(true);

      // The same server on the same data folder (another port): its jobs are still there.
      await server.restart();
      const resumed = await pdn([...args, '--resume'], {
        key: lostKey,
        env: { PDN_BASE_URL: server.baseUrl },
      });
      expect(resumed.code, resumed.stderr).toBe(0);
      const report = jsonOf(resumed);
      expect(report.summary.succeeded + report.summary.skipped).toBe(4);
      expect(report.summary.skipped).toBe(stopped.summary.succeeded);
      const listed = await call<{ data: { jobs: unknown[] } }>(server.baseUrl, '/api/v1/jobs?limit=100', {
        key: lostKey,
      });
      expect(listed.json.data.jobs).toHaveLength(4);
      const left = await readdir(ws.path('lost-out'));
      expect(left.filter((name) => name.endsWith('.compressed.pdf'))).toHaveLength(4);
      expect(left.filter((name) => name.startsWith('.pdn-run-'))).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});
