#!/usr/bin/env node
// Entry point of `pdn`: runs the command tree and turns whatever it throws into an exit code, in
// this one place: commands throw typed errors and only this file maps them to exit codes
// (changesets' packages/cli/src/index.ts does the same).
import { ApiError, AuthenticationError, LoginRefusedError, RateLimitError } from '@pdn/sdk';
import { type Command, CommanderError } from 'commander';
import { CommandContext, type Io } from './context.js';
import { CliError, MissingApiKeyError, OperationsFailedError, UsageError } from './errors.js';
import { commandPath, createProgram } from './program.js';
import { errorReport } from './report.js';
import { serverUnavailable, serverUnreachable } from './run-operations.js';

/** Documented in README.md, "Exit codes". */
const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  auth: 3,
  rateLimited: 4,
  unavailable: 5,
  unreachable: 6,
  interrupted: 130,
} as const;

const interrupt = new AbortController();
// The first Ctrl-C stops in-flight requests and new work, and the report still prints; a second one
// ends the process at once. The listener stays installed (not `once`): ora's cursor restorer
// (signal-exit) re-sends SIGINT to the process when it finds no other listener, which killed `pdn`
// before the report when the spinner ran in a terminal.
let interrupts = 0;
process.on('SIGINT', () => {
  interrupts++;
  if (interrupts === 1) interrupt.abort(new CliError('interrupted (Ctrl-C)', 'interrupted'));
  else process.exit(ExitCode.interrupted);
});

// A reader that stops early (`pdn languages | head -1`) closes the pipe: what is left cannot be
// shown, which is no reason to die with a stack trace. Other stdout errors stay fatal.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

const io: Io = {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: interrupt.signal,
};
const program = createProgram(io);
let running: Command = program;
program.hook('preAction', (_program, action) => {
  running = action;
});

let code: number = ExitCode.ok;
try {
  await program.parseAsync(process.argv);
} catch (error) {
  code = interrupt.signal.aborted ? ExitCode.interrupted : exitCodeFor(error);
  // Commander has printed its own message; a failed batch has been reported item by item.
  if (!(error instanceof CommanderError) && !(error instanceof OperationsFailedError)) {
    reportFatal(error);
  }
}
// Flush stdout before exiting: with `-o -` it may still hold the tail of a PDF in a pipe.
await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
process.exit(code);

function exitCodeFor(error: unknown): number {
  // --help and --version arrive as CommanderErrors with exitCode 0; every other is a usage error.
  if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  if (error instanceof OperationsFailedError) return batchExitCode(error.failures);
  if (isUsageError(error)) return ExitCode.usage;
  if (error instanceof MissingApiKeyError || error instanceof AuthenticationError) return ExitCode.auth;
  // `pdn login` denied in the browser, or its code expired: no key, as after a 401.
  if (error instanceof LoginRefusedError) return ExitCode.auth;
  if (error instanceof RateLimitError) return ExitCode.rateLimited;
  if (serverUnavailable(error)) return ExitCode.unavailable;
  if (serverUnreachable(error)) return ExitCode.unreachable;
  return ExitCode.failed;
}

/**
 * A failed batch exits for its most telling failure: auth, then rate limit, then a server that cannot
 * work now, then one that cannot be reached, then usage, else 1.
 */
function batchExitCode(failures: readonly unknown[]): number {
  if (failures.some((error) => error instanceof AuthenticationError)) return ExitCode.auth;
  if (failures.some((error) => error instanceof RateLimitError)) return ExitCode.rateLimited;
  if (failures.some(serverUnavailable)) return ExitCode.unavailable;
  if (failures.some(serverUnreachable)) return ExitCode.unreachable;
  if (failures.length > 0 && failures.every(isUsageError)) return ExitCode.usage;
  return ExitCode.failed;
}

/**
 * The user's arguments are wrong: the CLI said so (e.g. empty stdin), or the SDK refused the call
 * before sending it (e.g. one file to merge, which has no HTTP status).
 */
function isUsageError(error: unknown): boolean {
  if (error instanceof UsageError) return true;
  return error instanceof ApiError && error.status === undefined && error.code === 'invalid_input';
}

function reportFatal(error: unknown): void {
  const ctx = CommandContext.of(running, io);
  ctx.reporter.fatal(commandName(running), errorReport(error));
  // As for commander's own usage errors (program.ts): one line to the help, not the help itself.
  if (error instanceof UsageError) io.stderr.write(`Run '${commandPath(running)} --help' for usage.\n`);
  if (ctx.globals.verbose && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
}

/** `config get` rather than `get`: the names from the root down, without `pdn`. */
function commandName(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current?.parent; current = current.parent)
    names.unshift(current.name());
  return names.join(' ');
}
