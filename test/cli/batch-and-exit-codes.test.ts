// Batches and exit codes: a batch goes on past a bad file and reports it;
// 0 all succeeded, 1 some failed, 2 usage error, 3 authentication error, 4 rate limited after
// retries, with the unprocessed files listed.
import { readdir } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { labelledPdf, notAPdf } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { useServer } from '../src/harness/use-server.js';
import { exportedPdn, jsonOf } from './run-pdn.js';
import { useWorkspace } from './workspace.js';

const ctx = useServer();
const ws = useWorkspace();
let key: string;

const pdn = exportedPdn(ws, () => ({ key, baseUrl: ctx.server.baseUrl }));

/** A port nothing listens on: bound by the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Writes `count` one-page PDFs into `folder` and returns their relative paths, in order. */
async function pdfs(folder: string, count: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const name = `${folder}/doc${String(i).padStart(2, '0')}.pdf`;
      await ws.file(name, await labelledPdf(`${folder}${i}`, 1));
      return name;
    }),
  );
}

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'batcher', plan: 'enterprise' });
});

describe('a batch of 10 files with one bad file', () => {
  let files: string[];
  beforeAll(async () => {
    files = await pdfs('ten', 9);
    await ws.file('ten/bad.pdf', notAPdf());
    files.splice(4, 0, 'ten/bad.pdf');
  });

  it('--json: every file in order, the bad one with code, message and request id; exit 1', async () => {
    const run = await pdn(['compress', ...files, '-o', 'ten-json', '--json']);
    expect(run.code, run.stderr).toBe(1);
    const report = jsonOf(run);
    expect(report).toMatchObject({ command: 'compress', ok: false, error: null });
    expect(report.summary).toEqual({ total: 10, succeeded: 9, failed: 1, not_processed: 0, skipped: 0 });
    expect(report.results.map((item) => item.input)).toEqual(files);
    const bad = report.results[4];
    expect(bad).toMatchObject({ input: 'ten/bad.pdf', status: 'failed', data: null, outputs: [] });
    expect(bad?.error).toMatchObject({ code: 'invalid_input', status: 400 });
    expect(bad?.error?.message).toMatch(/\S/);
    expect(bad?.error?.request_id).toMatch(/\S/);
    expect(bad?.request_id).toBe(bad?.error?.request_id);
    for (const item of report.results.filter((result) => result !== bad)) {
      expect(item.status).toBe('succeeded');
      expect(item.outputs[0]).toMatchObject({ kind: 'file' });
    }
  });

  it('human: results on stdout, the failure and a summary on stderr', async () => {
    const run = await pdn(['compress', ...files, '-o', 'ten-human', '--concurrency', '3']);
    expect(run.code).toBe(1);
    expect(run.text.split('\n').filter((line) => line.startsWith('✔'))).toHaveLength(9);
    expect(run.text).toMatch(/^total: 9 files/m);
    expect(run.text).not.toContain('bad.pdf');
    expect(run.stderr).toMatch(/ten\/bad\.pdf: .+\[request \S+\]/);
    expect(run.stderr).toContain('9 succeeded, 1 failed');
  });
});

// Every file in flight listens to the one Ctrl-C signal; past 10 listeners Node printed a
// MaxListenersExceededWarning on stderr, which -c 12 reaches without any leak.
it('a batch of 12 at --concurrency 12 prints nothing on stderr but results', async () => {
  const files = await pdfs('wide', 12);
  const run = await pdn(['compress', ...files, '-o', 'wide-out', '--concurrency', '12', '--quiet']);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toBe('');
});

describe('exit codes', () => {
  it('0 when everything succeeded', async () => {
    const [file] = await pdfs('zero', 1);
    expect((await pdn(['compress', file as string, '--quiet'])).code).toBe(0);
  });

  const usage: [string, string[]][] = [
    ['an unknown flag', ['compress', 'x.pdf', '--squash']],
    ['a missing input file', ['compress', 'nowhere.pdf']],
    ['a bad --level', ['compress', 'x.pdf', '--level', 'max']],
    ['--json together with -o -', ['compress', '-', '-o', '-', '--json']],
    ['merge without -o', ['merge', 'a.pdf', 'b.pdf']],
  ];
  it.each(usage)('2 for %s, before any request', async (_name, args) => {
    const run = await pdn(args, { key: 'pdn_live_00000000000000000000000000000000' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/\S/);
  });

  it('2 for -o naming a file where a folder is needed, before any request', async () => {
    const [one, two] = (await pdfs('notdir', 2)) as [string, string];
    await ws.file('notdir/taken', new TextEncoder().encode('keep me'));
    for (const args of [
      ['split', one, '-r', '1', '-o', 'notdir/taken'],
      ['compress', one, two, '-o', 'notdir/taken'],
    ]) {
      // The key is unknown: a request would have answered 401 and exit 3.
      const run = await pdn(args, { key: 'pdn_live_00000000000000000000000000000000' });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('-o notdir/taken must be a folder');
    }
  });

  it('2 names every missing file at once', async () => {
    const run = await pdn(['compress', 'gone-1.pdf', 'gone-2.pdf']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('gone-1.pdf: no such file');
    expect(run.stderr).toContain('gone-2.pdf: no such file');
  });

  it('6 when the server cannot be reached, after the retries --max-retries allows, shown by --verbose', async () => {
    const run = await pdn([
      'languages',
      '--base-url',
      `http://127.0.0.1:${await closedPort()}`,
      '--max-retries',
      '1',
      '-v',
    ]);
    expect(run.code).toBe(6);
    expect(run.stderr).toMatch(/^retry 1 in \d+ ms: /m);
    expect(run.stderr).not.toMatch(/^retry 2 /m);
    expect(run.stderr).toMatch(/^✖ Could not reach .*Is the pdn server running at/m);
  });

  it('6 when the server cannot be reached: one line, the files not done, nothing claimed or left behind', async () => {
    const files = await pdfs('down', 4);
    const url = `http://127.0.0.1:${await closedPort()}`;
    const run = await pdn(['compress', ...files, '--concurrency', '1', '--max-retries', '0'], {
      env: { PDN_BASE_URL: url },
    });
    expect(run.code, run.stderr).toBe(6);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines.filter((line) => line.startsWith('✖'))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^✖ Could not reach ${url}/api/v1/compress: .*\\. Is the pdn server running at ${url}\\? The URL comes from PDN_BASE_URL; set another with PDN_BASE_URL or --base-url\\.$`,
        ),
      ),
    ]);
    for (const file of files) expect(lines.filter((line) => line === `- ${file}: not done`)).toHaveLength(1);
    // Nothing reached the server: nothing goes on there, and no run-state file is left to --resume.
    expect(run.stderr).not.toMatch(/go on on the server|--resume/);
    expect(run.stderr).toContain('Nothing was sent: run the same command once the server is up.');
    expect((await readdir(ws.path('down'))).filter((name) => name.startsWith('.pdn-run-'))).toEqual([]);
    expect((await readdir(ws.dir)).filter((name) => name.startsWith('.pdn-run-'))).toEqual([]);

    // --json, four at once: each input never tried is skipped, and the command's error says why.
    const json = jsonOf(await pdn(['compress', ...files, '--max-retries', '0', '--json', '--base-url', url]));
    expect(json.summary).toEqual({ total: 4, succeeded: 0, failed: 0, not_processed: 0, skipped: 4 });
    expect(json.ok).toBe(false);
    expect(json.error).toMatchObject({ code: 'connection_error' });
    for (const item of json.results)
      expect(item).toMatchObject({ status: 'skipped', skip_reason: 'server_unreachable', error: null });
    expect((await readdir(ws.dir)).filter((name) => name.startsWith('.pdn-run-'))).toEqual([]);
  });

  it('3 when no key is given anywhere, with a message saying where to put one', async () => {
    const [file] = await pdfs('nokey', 1);
    const run = await pdn(['compress', file as string, '--json'], { key: '' });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/--api-key.*PDN_API_KEY.*pdn config set api-key/);
    expect(jsonOf(run)).toMatchObject({ ok: false, results: [], error: { code: 'missing_api_key' } });
  });

  it('3 for a key the server does not know, and the batch stops at the first 401', async () => {
    const files = await pdfs('badkey', 3);
    const unknown = 'pdn_live_0123456789abcdef0123456789abcdef';
    const run = await pdn(['compress', ...files, '--json', '--concurrency', '1'], { key: unknown });
    expect(run.code).toBe(3);
    const report = jsonOf(run);
    expect(report.summary).toEqual({ total: 3, succeeded: 0, failed: 1, not_processed: 2, skipped: 0 });
    expect(report.results[0]?.error).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(report.results[2]?.error).toMatchObject({ code: 'unauthorized' });
  });

  it('3 also for --api-key, which wins over PDN_API_KEY; the message says which key, from where', async () => {
    const run = await pdn(['languages', '--api-key', 'pdn_test_ffffffffffffffffffffffffffffffff']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/The key pdn_test_…ffff came from --api-key\./);
    const fromEnv = await pdn(['languages'], { key: 'pdn_live_0123456789abcdef0123456789abcdef' });
    expect(fromEnv.stderr).toMatch(/The key pdn_live_…cdef came from PDN_API_KEY\./);
  });

  it('4 for a Free key past its hourly limit: stops starting work and lists the unprocessed files', async () => {
    const free = await ctx.server.createKey({ user: 'cli-free', plan: 'free' });
    const files = await pdfs('free', 14);
    const run = await pdn(['compress', ...files, '-o', 'free-out', '--json', '--concurrency', '2'], {
      key: free,
    });
    expect(run.code, run.stderr).toBe(4);
    const report = jsonOf(run);
    // Exactly the plan's 10 go through; the Retry-After of most of an hour is beyond the SDK's cap,
    // so the 429s are not retried and nothing new starts after the first of them.
    expect(report.summary.succeeded).toBe(10);
    expect(report.summary.failed + report.summary.not_processed).toBe(4);
    expect(report.summary.not_processed).toBeGreaterThanOrEqual(2);
    const refused = report.results.find((item) => item.status === 'failed');
    expect(refused?.error).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(refused?.error?.message).toMatch(/free/i);
    expect(refused?.error?.retry_after).toBeGreaterThan(60);

    const human = await pdn(['compress', files[0] as string, '-o', 'free-again'], { key: free });
    expect(human.code).toBe(4);
    // The server's seconds, the local time they come to, and where to see the plan's usage.
    expect(human.stderr).toMatch(
      /Try again in \d+ seconds\. That is at (\d{4}-\d\d-\d\d )?\d\d:\d\d \(in \d+ minutes\)\. `pdn status` shows your plan and the calls left\./,
    );

    // Listing languages costs nothing: it still works with the hour spent.
    const languages = await pdn(['languages', '-q'], { key: free });
    expect(languages.code, languages.stderr).toBe(0);
    expect(languages.text).toMatch(/^eng /m);
  });

  it('4 lists each not-processed file by name in human output', async () => {
    const free = await ctx.server.createKey({ user: 'cli-free-2', plan: 'free' });
    const spend = await pdfs('spend', 10);
    expect((await pdn(['compress', ...spend, '-o', 'spent', '-q'], { key: free })).code).toBe(0);
    const files = await pdfs('late', 3);
    const run = await pdn(['compress', ...files, '--concurrency', '1'], { key: free });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('late/doc01.pdf: not processed (rate_limited');
    expect(run.stderr).toContain('late/doc02.pdf: not processed (rate_limited');
    expect(run.stderr).toContain('0 succeeded, 1 failed, 2 not processed');
  });
});
