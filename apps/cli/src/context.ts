// What every command receives: the global flags, the process's streams, the reporter, and a way to
// build the SDK client (only when a command actually calls the API, so `pdn config` needs no key).
import { ConnectionError, Pdn } from '@pdn/sdk';
import type { Command } from 'commander';
import { configPath, maskApiKey, readConfig } from './config-file.js';
import { MissingApiKeyError } from './errors.js';
import type { Stdin } from './inputs.js';
import { type OutputStream, Reporter } from './reporter.js';
import { describeSource, resolveConnection } from './settings.js';
import { failedToConnect } from './unsent.js';

/** The process around the CLI; tests and bin.ts pass the real one. */
export interface Io {
  stdin: Stdin;
  stdout: OutputStream;
  stderr: OutputStream;
  env: NodeJS.ProcessEnv;
  /** Aborted on Ctrl-C: in-flight requests stop, no new work starts, temp files are removed. */
  signal: AbortSignal;
}

/** Global flags, as commander parses them: absent switches are undefined. */
export interface GlobalFlags {
  apiKey?: string;
  baseUrl?: string;
  json?: boolean;
  concurrency: number;
  maxRetries?: number;
  quiet?: boolean;
  verbose?: boolean;
}

/** The global flags with every switch decided. */
export interface GlobalOptions extends GlobalFlags {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
}

export function globalOptions(command: Command): GlobalOptions {
  const flags = command.optsWithGlobals<GlobalFlags>();
  return {
    ...flags,
    json: flags.json === true,
    quiet: flags.quiet === true,
    verbose: flags.verbose === true,
  };
}

export interface Client {
  pdn: Pdn;
  /** Absolute URL of a signed download path, for --no-download. */
  absoluteUrl(path: string): string;
}

const contexts = new WeakMap<Command, CommandContext>();

export class CommandContext {
  readonly reporter: Reporter;
  /**
   * Some attempt of this run failed after connecting (reset, timed out): a request may have reached
   * the server and its answer been lost, so the run claims of no input that nothing was sent (unsent.ts).
   */
  lostAnswers = false;

  constructor(
    readonly io: Io,
    readonly globals: GlobalOptions,
  ) {
    this.reporter = new Reporter({
      json: globals.json,
      quiet: globals.quiet,
      verbose: globals.verbose,
      stdout: io.stdout,
      stderr: io.stderr,
      env: io.env,
    });
  }

  /**
   * One context per command run: bin.ts reports a fatal error through the same reporter the command
   * used, so its spinner stops and it knows where the key and URL came from.
   */
  static of(command: Command, io: Io): CommandContext {
    let ctx = contexts.get(command);
    if (ctx === undefined || ctx.io !== io) {
      ctx = new CommandContext(io, globalOptions(command));
      contexts.set(command, ctx);
    }
    return ctx;
  }

  /** Keeps count of a failed attempt: one that connected and got no answer may have been received. */
  noteFailure(error: unknown): void {
    if (error instanceof ConnectionError && !failedToConnect(error)) this.lostAnswers = true;
  }

  get configPath(): string {
    return configPath(this.io.env);
  }

  /**
   * The SDK client for the key and base URL from flags, environment or config file, in that order.
   * The reporter learns where each came from, to say which setting to check after a 401 or when the
   * server cannot be reached.
   */
  async connect(): Promise<Client> {
    const connection = resolveConnection(this.globals, this.io.env, await readConfig(this.configPath));
    if (connection.apiKey === undefined) throw new MissingApiKeyError();
    const pdn = new Pdn({
      apiKey: connection.apiKey,
      ...(connection.baseUrl !== undefined ? { baseUrl: connection.baseUrl } : {}),
      ...(this.globals.maxRetries !== undefined ? { maxRetries: this.globals.maxRetries } : {}),
      onRetry: ({ attempt, delayMs, error }) => {
        this.noteFailure(error);
        const why = error instanceof Error ? error.message : String(error);
        this.reporter.verbose(`retry ${attempt} in ${Math.round(delayMs)} ms: ${why}`);
      },
    });
    this.reporter.connected({
      baseUrl: pdn.baseUrl,
      baseUrlFrom: describeSource('base-url', connection.baseUrlSource, this.configPath),
      maskedKey: maskApiKey(connection.apiKey),
      apiKeyFrom: describeSource('api-key', connection.apiKeySource, this.configPath),
    });
    return { pdn, absoluteUrl: (path) => new URL(path, `${pdn.baseUrl}/`).toString() };
  }
}
