import { PassThrough } from 'node:stream';
import { InsufficientStorageError, InvalidInputError, RateLimitError } from '@pdn/sdk';
import { describe, expect, it } from 'vitest';
import { commandReport, itemReport } from './report.js';
import { type HumanView, Reporter } from './reporter.js';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

const view: HumanView = { succeeded: (item) => `ok ${item.input}`, total: () => 'total line' };
const essentialView: HumanView = { ...view, essential: true };

const stop = new RateLimitError('Free plan: 10 per hour', { status: 429, requestId: 'r9', retryAfter: 3000 });
const report = commandReport('compress', [
  itemReport('a.pdf', { status: 'succeeded', value: { requestId: 'r1', data: {}, outputs: [] } }),
  itemReport('b.pdf', {
    status: 'failed',
    error: new InvalidInputError('not a PDF', { status: 400, requestId: 'r2' }),
  }),
  itemReport('c.pdf', { status: 'not_processed', reason: stop }),
]);

interface Setup {
  json?: boolean;
  quiet?: boolean;
  stdoutForData?: boolean;
  view?: HumanView;
}

function finish(setup: Setup): { stdout: string; stderr: string } {
  const stdout = capture();
  const stderr = capture();
  const reporter = new Reporter({
    json: setup.json === true,
    quiet: setup.quiet === true,
    verbose: false,
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: {},
  });
  if (setup.stdoutForData) reporter.useStdoutForData();
  reporter.finish(report, setup.view ?? view);
  return { stdout: stdout.text(), stderr: stderr.text() };
}

describe('Reporter.finish', () => {
  const cases: [string, { given: Setup; stdout: string; stderr: RegExp | '' }][] = [
    [
      'human: results on stdout; failures, the not processed and a summary on stderr',
      {
        given: {},
        stdout: 'ok a.pdf\ntotal line\n',
        stderr:
          /^✖ b\.pdf: not a PDF \[request r2\]\n- c\.pdf: not processed \(rate_limited; retry after 3000 s\)\n1 succeeded, 1 failed, 1 not processed\n$/,
      },
    ],
    [
      '--quiet drops success lines and the total, keeps errors',
      { given: { quiet: true }, stdout: '', stderr: /✖ b\.pdf[\s\S]*1 succeeded/ },
    ],
    [
      '--quiet keeps results that are data',
      { given: { quiet: true, view: essentialView }, stdout: 'ok a.pdf\n', stderr: /✖ b\.pdf/ },
    ],
    [
      'with -o - the human lines move to stderr',
      {
        given: { stdoutForData: true },
        stdout: '',
        stderr: /^ok a\.pdf\n✖ b\.pdf.*\n- c\.pdf.*\ntotal line\n1 succeeded/,
      },
    ],
  ];
  it.each(cases)('%s', (_name, { given, stdout, stderr }) => {
    const printed = finish(given);
    expect(printed.stdout).toBe(stdout);
    if (stderr === '') expect(printed.stderr).toBe('');
    else expect(printed.stderr).toMatch(stderr);
  });

  it("adds a 507's retry hint to its line, which the server's message does not hold", () => {
    const stderr = capture();
    const reporter = new Reporter({
      json: false,
      quiet: false,
      verbose: false,
      stdout: capture().stream,
      stderr: stderr.stream,
      env: {},
    });
    const full = new InsufficientStorageError('Disk full. Try again later.', {
      status: 507,
      requestId: 'r5',
      retryAfter: 60,
    });
    reporter.finish(
      commandReport('compress', [itemReport('a.pdf', { status: 'failed', error: full })]),
      view,
    );
    expect(stderr.text()).toBe('✖ a.pdf: Disk full. Try again later. (retry after 60 s) [request r5]\n');
  });

  it('--quiet --no-download prints only the signed URLs, one a line', () => {
    const stdout = capture();
    const reporter = new Reporter({
      json: false,
      quiet: true,
      verbose: false,
      stdout: stdout.stream,
      stderr: capture().stream,
      env: {},
    });
    const url = (n: number) => ({ kind: 'url' as const, url: `http://h/p?n=${n}`, expires_at: 'later' });
    const urls = commandReport('split', [
      itemReport('a.pdf', {
        status: 'succeeded',
        value: { requestId: 'r1', data: {}, outputs: [url(1), url(2)] },
      }),
    ]);
    reporter.finish(urls, view);
    expect(stdout.text()).toBe('http://h/p?n=1\nhttp://h/p?n=2\n');
  });

  it('--json: one JSON document on stdout, nothing on stderr', () => {
    const printed = finish({ json: true });
    expect(printed.stderr).toBe('');
    const document = JSON.parse(printed.stdout);
    expect(document).toMatchObject({ command: 'compress', ok: false, error: null });
    expect(document.results.map((item: { status: string }) => item.status)).toEqual([
      'succeeded',
      'failed',
      'not_processed',
    ]);
  });

  it('fatal errors print a JSON document too, and the message on stderr', () => {
    const stdout = capture();
    const stderr = capture();
    const reporter = new Reporter({
      json: true,
      quiet: false,
      verbose: false,
      stdout: stdout.stream,
      stderr: stderr.stream,
      env: {},
    });
    reporter.fatal('merge', {
      code: 'missing_api_key',
      message: 'No API key.',
      status: null,
      request_id: null,
    });
    expect(JSON.parse(stdout.text())).toMatchObject({
      command: 'merge',
      ok: false,
      results: [],
      error: { code: 'missing_api_key' },
    });
    expect(stderr.text()).toBe('Error: No API key.\n');
  });
});
