// Everything the CLI prints goes through here: results on stdout, nothing else there; with --json
// exactly one JSON document on stdout; progress as an ora spinner on stderr only when stderr is a
// terminal; errors, retries and request ids (--verbose) on stderr. Each file's line prints as the file
// settles, so a CI log follows a batch; results that are data (OCR text, the language list) print in
// input order at the end, with the not processed and the summary.

import type { WithMeta } from '@pdn/sdk';
import type { ChalkInstance } from 'chalk';
import ora, { type Ora } from 'ora';
import { describeInput, describeOutput, describeRateLimit } from './format.js';
import { type ConnectionFacts, keyHint, rateLimitHint, unreachableLine } from './hints.js';
import type { CommandReport, ErrorReport, ItemReport } from './report.js';
import { colourEnabled, createStyle } from './style.js';
import { describeWhen } from './when.js';

export interface OutputStream extends NodeJS.WritableStream {
  isTTY?: boolean;
  columns?: number;
}

export interface ReporterOptions {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  stdout: OutputStream;
  stderr: OutputStream;
  env: NodeJS.ProcessEnv;
  /** The clock for "at 14:05 (in 58 minutes)"; tests pass a fixed one. */
  now?: () => Date;
}

/** How a command shows its results to a person. */
export interface HumanView {
  /** Text for one succeeded item (may span lines). */
  succeeded(item: ItemReport, style: ChalkInstance): string;
  /** A closing line for several items, such as compress's total saving. */
  total?(report: CommandReport, style: ChalkInstance): string | undefined;
  /**
   * True when the lines are the result itself (OCR text, the language list), so --quiet keeps them
   * and they print in input order at the end rather than as each item settles.
   */
  essential?: boolean;
  /** The command has --skip-existing, so a stopped batch can be picked up by running it again. */
  resumable?: boolean;
}

export class Reporter {
  readonly #options: ReporterOptions;
  readonly #spinner: Ora | undefined;
  #stdoutCarriesData = false;
  #connection: ConnectionFacts | undefined;
  /** The unreachable server is explained once per batch, however many files were in flight. */
  #unreachableShown = false;
  /** Inputs already said to be not done, so the report's end does not list them twice. */
  readonly #saidNotDone = new Set<string>();

  constructor(options: ReporterOptions) {
    this.#options = options;
    const { stderr, json, quiet, env } = options;
    // A terminal reporting 0 columns (`script` without a size, `docker -t` early on) makes ora
    // count infinitely many lines to clear, and loop: no spinner there.
    if (stderr.isTTY === true && (stderr.columns ?? 0) > 0 && !json && !quiet) {
      // discardStdin off: with `-` the input is being read from stdin, which ora would swallow.
      this.#spinner = ora({
        stream: stderr,
        discardStdin: false,
        color: colourEnabled({ env, isTTY: true, json }) ? 'cyan' : false,
      });
    }
  }

  /** How this run connected, for the hints after a 401 or an unreachable server. */
  connected(facts: ConnectionFacts): void {
    this.#connection = facts;
  }

  /** `-o -`: stdout carries an output file, so human lines move to stderr. */
  useStdoutForData(): void {
    this.#stdoutCarriesData = true;
  }

  progress(text: string): void {
    if (!this.#spinner) return;
    this.#spinner.text = text;
    if (!this.#spinner.isSpinning) this.#spinner.start();
  }

  /** --verbose: which request (and job) served an item, and how much of the hourly limit is left. */
  answered(input: ItemReport['input'], result: WithMeta & { id?: string }): void {
    const limit = describeRateLimit(result.rateLimit);
    const job = result.id === undefined ? '' : `, job ${result.id}`;
    this.verbose(
      `${describeInput(input)}: request ${result.requestId}${job}${limit === '' ? '' : `; ${limit}`}`,
    );
  }

  /** A line a person should read about the run as a whole (not with --json or --quiet), on stderr. */
  notice(line: string): void {
    if (!this.#options.json && !this.#options.quiet) this.#write(this.#options.stderr, `${line}\n`);
  }

  /** --verbose detail (request ids, retries) on stderr. */
  verbose(line: string): void {
    if (this.#options.verbose && !this.#options.quiet) this.#write(this.#options.stderr, `${line}\n`);
  }

  /** One item is done (succeeded, failed or skipped): its line now, unless it waits for the end. */
  settled(command: string, item: ItemReport, view: HumanView): void {
    if (this.#options.json) return;
    if (item.status === 'succeeded') {
      if (view.essential !== true) this.#printSucceeded(item, view);
    } else if (item.status === 'skipped') {
      this.#printSkipped(item);
    } else if (item.status === 'failed') {
      this.#printItemError(item, command);
    }
  }

  /**
   * Prints what is left of a command's outcome once every item settled: the JSON document; or the
   * essential results in input order, the items not processed, the total and the summary.
   */
  finish(report: CommandReport, view: HumanView): void {
    if (this.#spinner?.isSpinning) this.#spinner.stop();
    if (this.#options.json) {
      this.printJson(report);
      return;
    }
    const out = this.#resultStream();
    const style = this.#style(out);
    for (const item of report.results) {
      if (item.status === 'succeeded' && view.essential === true) this.#printSucceeded(item, view);
      if (item.status === 'not_processed') this.#printItemError(item, report.command);
      // Never tried, the server being unreachable: said as the failures that showed it were.
      if (item.skip_reason === 'server_unreachable' && report.error !== null)
        this.#printItemError({ ...item, error: report.error }, report.command);
    }
    if (!this.#options.quiet && report.results.length > 1) {
      const total = view.total?.(report, style);
      if (total !== undefined) this.#write(out, `${total}\n`);
    }
    const { succeeded, failed, not_processed, skipped } = report.summary;
    const unsent = report.results.filter((item) => item.skip_reason === 'server_unreachable').length;
    if (report.summary.total > 1 && (!report.ok || (skipped > 0 && !this.#options.quiet))) {
      const parts = [`${succeeded} succeeded`, `${failed} failed`];
      if (not_processed > 0) parts.push(`${not_processed} not processed`);
      if (unsent > 0) parts.push(`${unsent} not sent (the server could not be reached)`);
      if (skipped > unsent) parts.push(`${skipped - unsent} skipped`);
      const err = this.#style(this.#options.stderr);
      const line = parts.join(', ');
      this.#write(this.#options.stderr, `${report.ok ? line : err.red(line)}\n`);
    }
    if (view.resumable === true && !this.#options.quiet) {
      // A re-run after a stop would fail on every output the last run wrote: say how to go on.
      const exists = report.results.some((item) => item.error?.code === 'output_exists');
      if (exists)
        this.#write(
          this.#options.stderr,
          'Outputs that exist: --skip-existing leaves them, --force overwrites them.\n',
        );
      else if (not_processed > 0 || (unsent > 0 && succeeded > 0))
        this.#write(
          this.#options.stderr,
          'Run the same command with --skip-existing to do only the files not done.\n',
        );
    }
    if (unsent > 0 && succeeded === 0 && !this.#options.quiet) {
      this.#write(this.#options.stderr, 'Nothing was sent: run the same command once the server is up.\n');
    }
  }

  /** An error that stopped the command before it produced a report. */
  fatal(command: string, error: ErrorReport): void {
    if (this.#spinner?.isSpinning) this.#spinner.stop();
    if (this.#options.json) {
      this.printJson({
        command,
        ok: false,
        summary: { total: 0, succeeded: 0, failed: 0, not_processed: 0, skipped: 0 },
        results: [],
        error,
      });
    }
    const message =
      error.code === 'connection_error'
        ? unreachableLine(error.message, this.#connection)
        : `${error.message}${this.#hint(error)}`;
    this.#write(this.#options.stderr, `${this.#style(this.#options.stderr).red('Error:')} ${message}\n`);
  }

  /** Plain text results that are not a command report (`pdn config ...`). */
  print(text: string): void {
    this.#write(this.#resultStream(), `${text}\n`);
  }

  /** A JSON value on stdout (`pdn config get --json`). */
  printJson(value: unknown): void {
    this.#write(this.#options.stdout, `${JSON.stringify(value, null, 2)}\n`);
  }

  #printSucceeded(item: ItemReport, view: HumanView): void {
    const out = this.#resultStream();
    const quietResults = this.#options.quiet && view.essential !== true;
    if (!quietResults) this.#write(out, `${view.succeeded(item, this.#style(out))}\n`);
    // The signed URLs of --no-download are the result itself: --quiet keeps them, one a line.
    else this.#write(out, urlLines(item));
  }

  #printSkipped(item: ItemReport): void {
    if (this.#options.quiet) return;
    const style = this.#style(this.#options.stderr);
    const why = {
      output_exists: `skipped, ${describeOutput(item.outputs[0])} exists (--skip-existing)`,
      pdn_output: "skipped, named like pdn's own output (name it alone, or pass --include-outputs)",
      collected: 'skipped, done by the interrupted run (--resume)',
      server_unreachable: 'not done (the server could not be reached)',
    }[item.skip_reason ?? 'pdn_output'];
    this.#write(this.#options.stderr, `${style.dim('-')} ${describeInput(item.input)}: ${why}\n`);
  }

  #printItemError(item: ItemReport, command: string): void {
    const err = this.#options.stderr;
    const style = this.#style(err);
    const label = describeInput(item.input) || command;
    const error = item.error;
    if (error?.code === 'connection_error') {
      // The server is unreachable (exit 6): one line for the batch, then each file not done.
      if (!this.#unreachableShown) {
        this.#unreachableShown = true;
        this.#write(err, `${style.red('✖')} ${unreachableLine(error.message, this.#connection)}\n`);
      }
      if (label !== '' && !this.#saidNotDone.has(label)) {
        this.#saidNotDone.add(label);
        this.#write(err, `${style.yellow('-')} ${label}: not done\n`);
      }
      return;
    }
    if (item.status === 'not_processed') {
      const why = error ? ` (${error.code}${this.#retryHint(error)})` : '';
      this.#write(err, `${style.yellow('-')} ${label}: not processed${why}\n`);
      return;
    }
    const requestId = error?.request_id ? style.dim(` [request ${error.request_id}]`) : '';
    this.#write(
      err,
      `${style.red('✖')} ${label}: ${error?.message ?? 'failed'}${this.#hint(error)}${requestId}\n`,
    );
  }

  /**
   * The server's 429 message already says how many seconds to wait (http/middleware/rate-limit.ts):
   * add the local time and `pdn status`. A 401 says which key, from where. The hint of a 503 or 507
   * is in the envelope only.
   */
  #hint(error: ErrorReport | null): string {
    switch (error?.code) {
      case 'rate_limited':
        return rateLimitHint(error.retry_after, this.#now());
      case 'unauthorized':
        return keyHint(this.#connection);
      default:
        return error?.retry_after === undefined ? '' : ` (retry ${this.#retryAt(error.retry_after)})`;
    }
  }

  #retryHint(error: ErrorReport): string {
    return error.retry_after === undefined ? '' : `; retry ${this.#retryAt(error.retry_after)}`;
  }

  /** `at 14:05 (in 58 minutes)`. */
  #retryAt(seconds: number): string {
    const now = this.#now();
    return `at ${describeWhen(new Date(now.getTime() + seconds * 1000), now)}`;
  }

  #now(): Date {
    return this.#options.now?.() ?? new Date();
  }

  #resultStream(): OutputStream {
    return this.#stdoutCarriesData ? this.#options.stderr : this.#options.stdout;
  }

  #style(stream: OutputStream): ChalkInstance {
    const { env, json } = this.#options;
    return createStyle(colourEnabled({ env, json, isTTY: stream.isTTY === true }));
  }

  /** Writes around the spinner so its frame never lands in the middle of a line. */
  #write(stream: OutputStream, text: string): void {
    const spinning = this.#spinner?.isSpinning === true && stream === this.#options.stderr;
    if (spinning) this.#spinner?.clear();
    stream.write(text);
    if (spinning) this.#spinner?.render();
  }
}

function urlLines(item: ItemReport): string {
  return item.outputs.map((output) => (output.kind === 'url' ? `${output.url}\n` : '')).join('');
}
