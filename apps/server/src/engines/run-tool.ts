// Runs an external tool (qpdf, gs, tesseract, OCRmyPDF) the one safe way: no shell; started by the
// tool launcher (processes/tool-launcher.ts), off the server's event loop, in its own process group (a
// timeout or a client abort kills every process it started: a shell-spawned child once survived its
// timeout as an orphan) and dying with this process even when this process is killed with SIGKILL; a
// clean environment holding none of the server's secrets; a lower CPU priority so document work never
// starves the event loop answering cheap requests; and bounded capture of what it prints.
import { constants } from 'node:os';
import { basename } from 'node:path';
import { toolRuns } from '../metrics.js';
import { type LaunchedTool, launchTool } from '../processes/tool-launcher.js';
import { toolReport } from './tool-report.js';

/** Where and how a tool is started. */
export interface ToolStartOptions {
  /** Working folder: the per-request temp folder, so nothing lands anywhere else. */
  cwd: string;
  /** Variables added to the minimal environment (PATH, LANG, HOME and TMPDIR set to `cwd`). */
  env?: Record<string, string>;
  /** Runs the tool under this memory limit (OCR of a hostile image must not take the machine's memory). */
  memoryLimit?: MemoryLimit;
}

/** The run's bounds, counted from when its work is handed over. */
export interface ToolRunOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Sees what the tool prints on stderr as it prints it (OCRmyPDF's page progress). */
  onStderr?: (chunk: Buffer) => void;
}

export type RunToolOptions = ToolStartOptions & ToolRunOptions;

/** A memory limit set with util-linux's prlimit, which applies it, then executes the command. */
export interface MemoryLimit {
  prlimit: string;
  /** Writable private memory (RLIMIT_DATA): heap, mmap'd buffers, WebAssembly memory as it grows. */
  bytes: number;
}

/**
 * Address space allowed beyond `MemoryLimit.bytes`: reservations that use no memory. V8 reserves
 * WebAssembly memory up to its maximum, code ranges and heap cages up front (measured: 3.7 GB of
 * address space for 390 MB resident while tesseract.js read a 40-megapixel page).
 */
const RESERVED_ADDRESS_SPACE = 4 * 2 ** 30;

/**
 * The command line running `command args...` under `limit`. RLIMIT_DATA bounds what the process can
 * write to (since Linux 4.7 it counts every private writable mapping, so malloc, ArrayBuffers and a
 * growing WebAssembly memory alike), close to what it can make resident; RLIMIT_AS backs it up for
 * mappings RLIMIT_DATA does not count. An allocation past either fails inside the process instead of
 * growing the machine's memory. Children inherit both.
 */
export function limitedCommand(
  limit: MemoryLimit,
  command: string,
  args: readonly string[],
): [string, string[]] {
  return [
    limit.prlimit,
    [`--data=${limit.bytes}`, `--as=${limit.bytes + RESERVED_ADDRESS_SPACE}`, '--', command, ...args],
  ];
}

export interface ToolResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** The tool did not finish within its time budget and was killed. */
export class ToolTimeoutError extends Error {
  override name = 'ToolTimeoutError';
  constructor(
    readonly command: string,
    readonly timeoutMs: number,
  ) {
    super(`${command} did not finish within ${timeoutMs} ms and was stopped`);
  }
}

/** The caller aborted (client went away) and the tool was killed. */
export class ToolAbortedError extends Error {
  override name = 'ToolAbortedError';
  constructor(readonly command: string) {
    super(`${command} was stopped because the request was aborted`);
  }
}

/**
 * The tool said the disk or the quota is full (strerror of ENOSPC and EDQUOT, which tools print as
 * they get it). `code` is that errno's name, so the error middleware answers 507 whatever the caller
 * wraps this in. Tools that say nothing (qpdf 11.3 exits 0 after writing an empty file to a full
 * disk) are caught by the check of the disk itself (storage/disk-space.ts).
 */
export class ToolOutOfSpaceError extends Error {
  override name = 'ToolOutOfSpaceError';
  constructor(
    readonly command: string,
    readonly code: 'ENOSPC' | 'EDQUOT',
    stderr: string,
  ) {
    super(`${command} ran out of disk space: ${stderr.trim()}`);
  }
}

const OUT_OF_SPACE: readonly [RegExp, 'ENOSPC' | 'EDQUOT'][] = [
  [/No space left on device/i, 'ENOSPC'],
  [/Disk quota exceeded/i, 'EDQUOT'],
];

/** Nice value of tool processes: below the server's own priority, so HTTP stays responsive under load. */
const TOOL_NICENESS = 10;

/** Beyond this much output per stream we keep only the tail: tools' diagnostics fit easily. */
const MAX_CAPTURE_BYTES = 64 * 1024;

function minimalEnv(cwd: string, extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    HOME: cwd,
    TMPDIR: cwd,
    ...extra,
  };
}

function toolResult(stoppedBy: Error | undefined, exitCode: number | null): string {
  if (stoppedBy instanceof ToolTimeoutError) return 'timeout';
  if (stoppedBy) return 'aborted';
  return exitCode === 0 ? 'ok' : 'failed';
}

function appendCapped(buffer: Buffer, chunk: Buffer): Buffer {
  const joined = Buffer.concat([buffer, chunk]);
  return joined.length > MAX_CAPTURE_BYTES ? joined.subarray(joined.length - MAX_CAPTURE_BYTES) : joined;
}

/** What `ToolProcess.run` is waiting for: the tool's end, and the run's own bounds. */
interface PendingRun {
  options: ToolRunOptions;
  /** The command line the log gives, so that the run can be repeated by hand. */
  asked: readonly string[];
  started: number;
  report: ReturnType<typeof toolReport>;
  timer: NodeJS.Timeout;
  onAbort: () => void;
  resolve(result: ToolResult): void;
  reject(error: unknown): void;
}

/** A tool as the launcher runs it: its output captured from its start, its work bounded from `run`. */
class ToolProcess {
  readonly #command: string;
  readonly #args: readonly string[];
  readonly #tool: LaunchedTool;
  #stdout: Buffer = Buffer.alloc(0);
  #stderr: Buffer = Buffer.alloc(0);
  #stoppedBy: Error | undefined;
  #pending: PendingRun | undefined;
  /** How it ended before anyone ran it: a spawn error, or its exit. */
  #endedEarly: (() => void) | undefined;
  #ended = false;
  #onEnd: (() => void) | undefined;

  constructor(command: string, args: readonly string[], start: ToolStartOptions, inputLater: boolean) {
    this.#command = command;
    this.#args = args;
    const [file, argv] =
      start.memoryLimit === undefined ? [command, args] : limitedCommand(start.memoryLimit, command, args);
    this.#tool = launchTool(
      file,
      argv,
      { cwd: start.cwd, env: minimalEnv(start.cwd, start.env), niceness: TOOL_NICENESS, inputLater },
      {
        output: (stream, chunk) => {
          if (stream === 'stdout') {
            this.#stdout = appendCapped(this.#stdout, chunk);
            return;
          }
          this.#stderr = appendCapped(this.#stderr, chunk);
          this.#pending?.options.onStderr?.(chunk);
        },
        failed: (error) => this.#end(() => this.#settle()?.reject(error)),
        closed: (exitCode, signal) => this.#end(() => this.#closed(exitCode, signal)),
      },
    );
  }

  /**
   * Hands the tool `input` (for one started to wait for it) and resolves as `runTool` does; the
   * timeout and the abort count from here. `asked` is the command line the log names.
   */
  run(
    options: ToolRunOptions,
    input?: Uint8Array,
    asked: readonly string[] = this.#args,
  ): Promise<ToolResult> {
    return new Promise((resolve, reject) => {
      if (options.signal?.aborted) {
        this.kill();
        reject(new ToolAbortedError(this.#command));
        return;
      }
      const stop = (reason: Error) => {
        this.#stoppedBy ??= reason;
        this.#tool.kill();
      };
      const onAbort = () => stop(new ToolAbortedError(this.#command));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending = {
        options,
        asked,
        started: performance.now(),
        // Read now, in the caller's async context: the tool's end is heard in the launcher's message
        // handler, outside it.
        report: toolReport(),
        timer: setTimeout(
          () => stop(new ToolTimeoutError(this.#command, options.timeoutMs)),
          options.timeoutMs,
        ),
        onAbort,
        resolve,
        reject,
      };
      if (this.#endedEarly !== undefined) this.#endedEarly();
      else if (input !== undefined) this.#tool.input(input);
    });
  }

  /** It exited, or could not start. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Ends the tool, whether or not it ran. */
  kill(): void {
    this.#tool.kill();
  }

  /** Calls `listener` once the tool has exited or failed to start, whether or not it ran. */
  onEnd(listener: () => void): void {
    this.#onEnd = listener;
    if (this.#ended) listener();
  }

  #end(tell: () => void): void {
    this.#ended = true;
    this.#onEnd?.();
    if (this.#pending === undefined) this.#endedEarly = tell;
    else tell();
  }

  /** The run's waiter, its bounds cleared. */
  #settle(): PendingRun | undefined {
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending === undefined) return undefined;
    clearTimeout(pending.timer);
    pending.options.signal?.removeEventListener('abort', pending.onAbort);
    return pending;
  }

  #closed(exitCode: number | null, signal: NodeJS.Signals | null): void {
    const pending = this.#settle();
    if (pending === undefined) return;
    const diagnostics = this.#stderr.toString('utf8');
    const ms = performance.now() - pending.started;
    const command = this.#command;
    pending.report?.log.debug('tool finished', {
      tool: command,
      // What it was asked, so that a run can be repeated by hand (the bench times the compress
      // candidate's Ghostscript run alone this way).
      args: pending.asked,
      exit_code: exitCode,
      signal: signal ?? undefined,
      ms: Math.round(ms),
      stderr: diagnostics === '' ? undefined : diagnostics,
    });
    pending.report?.ran(basename(command), ms);
    toolRuns.inc({ tool: basename(command), result: toolResult(this.#stoppedBy, exitCode) });
    if (this.#stoppedBy) {
      pending.reject(this.#stoppedBy);
      return;
    }
    const outOfSpace = OUT_OF_SPACE.find(([pattern]) => pattern.test(diagnostics));
    if (outOfSpace) {
      pending.reject(new ToolOutOfSpaceError(command, outOfSpace[1], diagnostics));
      return;
    }
    pending.resolve({
      // A tool killed by a signal (a crash, since our own kills reject above) reports 128 + the
      // signal's number, as shells do: SIGSEGV is 139.
      exitCode: exitCode ?? 128 + (signal ? constants.signals[signal] : 0),
      stdout: this.#stdout.toString('utf8'),
      stderr: diagnostics,
    });
  }
}

/**
 * Runs `command args...` and resolves with its exit code and output, whatever the exit code: what a
 * non-zero exit means is the caller's to decide (qpdf exits 3 for warnings on a usable file).
 * Rejects with ToolTimeoutError or ToolAbortedError after killing the whole process group, with
 * ToolOutOfSpaceError when it reports a full disk (whatever its exit code), or with the spawn error
 * when the binary cannot be started.
 */
export function runTool(
  command: string,
  args: readonly string[],
  options: RunToolOptions,
): Promise<ToolResult> {
  if (options.signal?.aborted) return Promise.reject(new ToolAbortedError(command));
  return new ToolProcess(command, args, options, false).run(options);
}

/**
 * A tool started before its work is known: it waits for its standard input, and what it does before
 * reading it (its own start-up) costs whoever runs it nothing. `run` hands it the input and is bounded
 * from then on, as `runTool` is.
 */
export class WaitingTool {
  readonly #process: ToolProcess;

  constructor(command: string, args: readonly string[], start: ToolStartOptions) {
    this.#process = new ToolProcess(command, args, start, true);
  }

  /** It exited, or could not start, before it was given its work. */
  get ended(): boolean {
    return this.#process.ended;
  }

  /** Calls `listener` once it has exited or failed to start, run or not. */
  onEnd(listener: () => void): void {
    this.#process.onEnd(listener);
  }

  run(input: string, options: ToolRunOptions, asked: readonly string[]): Promise<ToolResult> {
    return this.#process.run(options, Buffer.from(input), asked);
  }

  /** Ends a tool that will not be run. */
  discard(): void {
    this.#process.kill();
  }
}
