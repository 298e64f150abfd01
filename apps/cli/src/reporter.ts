// Everything the CLI prints goes through here (issue #5, "Behaviour"): results on stdout, nothing
// else there; with --json exactly one JSON document on stdout; progress as an ora spinner on stderr
// only when stderr is a terminal; errors, retries and request ids (--verbose) on stderr.

import type { WithMeta } from '@pdn/sdk';
import type { ChalkInstance } from 'chalk';
import ora, { type Ora } from 'ora';
import { describeInput, describeRateLimit } from './format.js';
import type { CommandReport, ErrorReport, ItemReport } from './report.js';
import { colourEnabled, createStyle } from './style.js';

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
}

/** How a command shows its results to a person. */
export interface HumanView {
  /** Text for one succeeded item (may span lines). */
  succeeded(item: ItemReport, style: ChalkInstance): string;
  /** A closing line for several items, such as compress's total saving. */
  total?(report: CommandReport, style: ChalkInstance): string | undefined;
  /** True when the lines are the result itself (OCR text, URLs), so --quiet keeps them. */
  essential?: boolean;
}

export class Reporter {
  readonly #options: ReporterOptions;
  readonly #spinner: Ora | undefined;
  #stdoutCarriesData = false;

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

  /** `-o -`: stdout carries an output file, so human lines move to stderr. */
  useStdoutForData(): void {
    this.#stdoutCarriesData = true;
  }

  progress(text: string): void {
    if (!this.#spinner) return;
    this.#spinner.text = text;
    if (!this.#spinner.isSpinning) this.#spinner.start();
  }

  /** --verbose: which request served an item, and how much of the hourly limit is left. */
  answered(input: ItemReport['input'], result: WithMeta): void {
    const limit = describeRateLimit(result.rateLimit);
    this.verbose(`${describeInput(input)}: request ${result.requestId}${limit === '' ? '' : `; ${limit}`}`);
  }

  /** --verbose detail (request ids, retries) on stderr. */
  verbose(line: string): void {
    if (this.#options.verbose && !this.#options.quiet) this.#write(this.#options.stderr, `${line}\n`);
  }

  /** Prints a command's outcome: the JSON document, or human lines. */
  finish(report: CommandReport, view: HumanView): void {
    if (this.#spinner?.isSpinning) this.#spinner.stop();
    if (this.#options.json) {
      this.printJson(report);
      return;
    }
    const out = this.#resultStream();
    const style = this.#style(out);
    const quietResults = this.#options.quiet && view.essential !== true;
    for (const item of report.results) {
      if (item.status === 'succeeded') {
        if (!quietResults) this.#write(out, `${view.succeeded(item, style)}\n`);
        // The signed URLs of --no-download are the result itself: --quiet keeps them, one a line.
        else this.#write(out, urlLines(item));
      } else {
        this.#printItemError(item, report.command);
      }
    }
    if (!this.#options.quiet && report.results.length > 1) {
      const total = view.total?.(report, style);
      if (total !== undefined) this.#write(out, `${total}\n`);
    }
    if (report.summary.total > 1 && !report.ok) {
      const { succeeded, failed, not_processed } = report.summary;
      const parts = [`${succeeded} succeeded`, `${failed} failed`];
      if (not_processed > 0) parts.push(`${not_processed} not processed`);
      this.#write(this.#options.stderr, `${this.#style(this.#options.stderr).red(parts.join(', '))}\n`);
    }
  }

  /** An error that stopped the command before it produced a report. */
  fatal(command: string, error: ErrorReport): void {
    if (this.#spinner?.isSpinning) this.#spinner.stop();
    if (this.#options.json) {
      this.printJson({
        command,
        ok: false,
        summary: { total: 0, succeeded: 0, failed: 0, not_processed: 0 },
        results: [],
        error,
      });
    }
    this.#write(
      this.#options.stderr,
      `${this.#style(this.#options.stderr).red('Error:')} ${error.message}\n`,
    );
  }

  /** Plain text results that are not a command report (`pdn config ...`). */
  print(text: string): void {
    this.#write(this.#resultStream(), `${text}\n`);
  }

  /** A JSON value on stdout (`pdn config get --json`). */
  printJson(value: unknown): void {
    this.#write(this.#options.stdout, `${JSON.stringify(value, null, 2)}\n`);
  }

  #printItemError(item: ItemReport, command: string): void {
    const err = this.#options.stderr;
    const style = this.#style(err);
    const label = describeInput(item.input) || command;
    const error = item.error;
    if (item.status === 'not_processed') {
      const why = error ? ` (${error.code}${retryHint(error)})` : '';
      this.#write(err, `${style.yellow('-')} ${label}: not processed${why}\n`);
      return;
    }
    const requestId = error?.request_id ? style.dim(` [request ${error.request_id}]`) : '';
    // The server's 429 message already says when to try again (http/middleware/rate-limit.ts); the
    // hint of a 503 or 507 is in the envelope only.
    const when =
      error?.retry_after !== undefined && error.code !== 'rate_limited'
        ? ` (retry after ${error.retry_after} s)`
        : '';
    this.#write(err, `${style.red('✖')} ${label}: ${error?.message ?? 'failed'}${when}${requestId}\n`);
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

function retryHint(error: ErrorReport | null): string {
  return error?.retry_after === undefined ? '' : `; retry after ${error.retry_after} s`;
}
