import { PassThrough } from 'node:stream';
import {
  AuthenticationError,
  ConnectionError,
  InsufficientStorageError,
  InvalidInputError,
  RateLimitError,
} from '@pdn/sdk';
import { describe, expect, it } from 'vitest';
import { OutputExistsError } from './errors.js';
import { type CommandReport, commandReport, itemReport, skippedReport } from './report.js';
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

/** As runOperations reports: each item as it settles, then the end. */
function reportAll(reporter: Reporter, done: CommandReport, shown: HumanView): void {
  for (const item of done.results) reporter.settled(done.command, item, shown);
  reporter.finish(done, shown);
}

/** 13:00 local, so a retry after 3000 s is at 13:50. */
const NOW = new Date(2026, 10, 23, 13, 0, 0);

interface Setup {
  json?: boolean;
  quiet?: boolean;
  stdoutForData?: boolean;
  view?: HumanView;
}

/** A reporter writing to captured streams, with the clock at NOW. */
function testReporter(options: { json?: boolean; quiet?: boolean } = {}) {
  const stdout = capture();
  const stderr = capture();
  const reporter = new Reporter({
    json: options.json === true,
    quiet: options.quiet === true,
    verbose: false,
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: {},
    now: () => NOW,
  });
  return { reporter, stdout, stderr };
}

function finish(setup: Setup): { stdout: string; stderr: string } {
  const { reporter, stdout, stderr } = testReporter(setup);
  if (setup.stdoutForData) reporter.useStdoutForData();
  reportAll(reporter, report, setup.view ?? view);
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
          /^✖ b\.pdf: not a PDF \[request r2\]\n- c\.pdf: not processed \(rate_limited; retry at 13:50 \(in 50 minutes\)\)\n1 succeeded, 1 failed, 1 not processed\n$/,
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
    const { reporter, stderr } = testReporter();
    const full = new InsufficientStorageError('Disk full. Try again later.', {
      status: 507,
      requestId: 'r5',
      retryAfter: 60,
    });
    reportAll(
      reporter,
      commandReport('compress', [itemReport('a.pdf', { status: 'failed', error: full })]),
      view,
    );
    expect(stderr.text()).toBe(
      '✖ a.pdf: Disk full. Try again later. (retry at 13:01 (in 60 seconds)) [request r5]\n',
    );
  });

  it('--quiet --no-download prints only the signed URLs, one a line', () => {
    const { reporter, stdout } = testReporter({ quiet: true });
    const url = (n: number) => ({ kind: 'url' as const, url: `http://h/p?n=${n}`, expires_at: 'later' });
    const urls = commandReport('split', [
      itemReport('a.pdf', {
        status: 'succeeded',
        value: { requestId: 'r1', data: {}, outputs: [url(1), url(2)] },
      }),
    ]);
    reportAll(reporter, urls, view);
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
    const { reporter, stdout, stderr } = testReporter({ json: true });
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

  describe('hints for a person', () => {
    const facts = {
      baseUrl: 'http://127.0.0.1:9',
      baseUrlFrom: 'PDN_BASE_URL',
      maskedKey: 'pdn_live_…c0de',
      apiKeyFrom: 'PDN_API_KEY',
    };
    function human(done: CommandReport): string {
      const { reporter, stderr } = testReporter();
      reporter.connected(facts);
      reportAll(reporter, done, { ...view, resumable: true });
      return stderr.text();
    }
    const refused = new ConnectionError('Could not reach http://127.0.0.1:9/api/v1/compress: ECONNREFUSED');

    it('an unreachable server: one line saying what to check, then each file not done', () => {
      const text = human(
        commandReport('compress', [
          itemReport('a.pdf', { status: 'failed', error: refused }),
          itemReport('b.pdf', { status: 'failed', error: refused }),
          itemReport('c.pdf', { status: 'not_processed', reason: refused }),
        ]),
      );
      expect(text.split('\n')).toEqual([
        '✖ Could not reach http://127.0.0.1:9/api/v1/compress: ECONNREFUSED. Is the pdn server running at http://127.0.0.1:9? The URL comes from PDN_BASE_URL; set another with PDN_BASE_URL or --base-url.',
        '- a.pdf: not done',
        '- b.pdf: not done',
        '- c.pdf: not done',
        '0 succeeded, 2 failed, 1 not processed',
        'Run the same command with --skip-existing to do only the files not done.',
        '',
      ]);
    });

    it('a 429: the local time and `pdn status`', () => {
      const limited = new RateLimitError('Try again in 3000 seconds.', { status: 429, retryAfter: 3000 });
      expect(
        human(commandReport('compress', [itemReport('a.pdf', { status: 'failed', error: limited })])),
      ).toBe(
        '✖ a.pdf: Try again in 3000 seconds. That is at 13:50 (in 50 minutes). `pdn status` shows your plan and the calls left.\n',
      );
    });

    it('a 401: which key, from where', () => {
      const denied = new AuthenticationError('Invalid API key.', { status: 401 });
      expect(human(commandReport('languages', [itemReport(null, { status: 'failed', error: denied })]))).toBe(
        '✖ languages: Invalid API key. The key pdn_live_…c0de came from PDN_API_KEY.\n',
      );
    });

    it('outputs that exist: points to --skip-existing and --force once', () => {
      const exists = new OutputExistsError('a.compressed.pdf');
      const text = human(
        commandReport('compress', [
          itemReport('a.pdf', { status: 'failed', error: exists }),
          itemReport('b.pdf', { status: 'failed', error: new OutputExistsError('b.compressed.pdf') }),
        ]),
      );
      expect(text.split('\n').slice(-3)).toEqual([
        '0 succeeded, 2 failed',
        'Outputs that exist: --skip-existing leaves them, --force overwrites them.',
        '',
      ]);
    });

    it('skipped inputs: a notice each, and the count in the summary', () => {
      const text = human(
        commandReport('compress', [
          skippedReport('a.pdf', 'output_exists', [{ kind: 'file', path: 'a.compressed.pdf', bytes: 1 }]),
          skippedReport('a.compressed.pdf', 'pdn_output'),
        ]),
      );
      expect(text).toBe(
        "- a.pdf: skipped, a.compressed.pdf exists (--skip-existing)\n- a.compressed.pdf: skipped, named like pdn's own output (name it alone, or pass --include-outputs)\n0 succeeded, 0 failed, 2 skipped\n",
      );
    });
  });
});
