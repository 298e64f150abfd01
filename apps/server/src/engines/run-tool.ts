// Runs an external tool (qpdf, gs, tesseract, OCRmyPDF) the one safe way: no shell; started by the
// tool launcher (processes/tool-launcher.ts), off the server's event loop, in its own process group (a
// timeout or a client abort kills every process it started: a shell-spawned child once survived its
// timeout as an orphan) and dying with this process even when this process is killed with SIGKILL; a
// clean environment holding none of the server's secrets; a lower CPU priority so document work never
// starves the event loop answering cheap requests; and bounded capture of what it prints.
import { constants } from 'node:os';
import { basename } from 'node:path';
import { toolRuns } from '../metrics.js';
import { launchTool } from '../processes/tool-launcher.js';
import { toolReport } from './tool-report.js';

export interface RunToolOptions {
  /** Working folder: the per-request temp folder, so nothing lands anywhere else. */
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Variables added to the minimal environment (PATH, LANG, HOME and TMPDIR set to `cwd`). */
  env?: Record<string, string>;
  /** Runs the tool under this memory limit (OCR of a hostile image must not take the machine's memory). */
  memoryLimit?: MemoryLimit;
  /** Sees what the tool prints on stderr as it prints it (OCRmyPDF's page progress). */
  onStderr?: (chunk: Buffer) => void;
}

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
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new ToolAbortedError(command));
      return;
    }
    const [file, argv] =
      options.memoryLimit === undefined
        ? [command, args]
        : limitedCommand(options.memoryLimit, command, args);
    let stdout: Buffer = Buffer.alloc(0);
    let stderr: Buffer = Buffer.alloc(0);
    let stoppedBy: Error | undefined;
    const started = performance.now();
    // Read now, in the caller's async context: the tool's end is heard in the launcher's message
    // handler, outside it.
    const report = toolReport();

    const finish = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    const tool = launchTool(
      file,
      argv,
      { cwd: options.cwd, env: minimalEnv(options.cwd, options.env), niceness: TOOL_NICENESS },
      {
        output(stream, chunk) {
          if (stream === 'stdout') {
            stdout = appendCapped(stdout, chunk);
            return;
          }
          stderr = appendCapped(stderr, chunk);
          options.onStderr?.(chunk);
        },
        failed(error) {
          finish();
          reject(error);
        },
        closed,
      },
    );
    const killGroup = (reason: Error) => {
      stoppedBy ??= reason;
      tool.kill();
    };
    const timer = setTimeout(
      () => killGroup(new ToolTimeoutError(command, options.timeoutMs)),
      options.timeoutMs,
    );
    const onAbort = () => killGroup(new ToolAbortedError(command));
    options.signal?.addEventListener('abort', onAbort, { once: true });

    function closed(exitCode: number | null, signal: NodeJS.Signals | null): void {
      finish();
      const diagnostics = stderr.toString('utf8');
      const ms = performance.now() - started;
      report?.log.debug('tool finished', {
        tool: command,
        // What it was asked, so that a run can be repeated by hand (the bench times the compress
        // candidate's Ghostscript run alone this way).
        args,
        exit_code: exitCode,
        signal: signal ?? undefined,
        ms: Math.round(ms),
        stderr: diagnostics === '' ? undefined : diagnostics,
      });
      report?.ran(basename(command), ms);
      toolRuns.inc({ tool: basename(command), result: toolResult(stoppedBy, exitCode) });
      if (stoppedBy) {
        reject(stoppedBy);
        return;
      }
      const outOfSpace = OUT_OF_SPACE.find(([pattern]) => pattern.test(diagnostics));
      if (outOfSpace) {
        reject(new ToolOutOfSpaceError(command, outOfSpace[1], diagnostics));
        return;
      }
      resolve({
        // A tool killed by a signal (a crash, since our own kills reject above) reports 128 + the
        // signal's number, as shells do: SIGSEGV is 139.
        exitCode: exitCode ?? 128 + (signal ? constants.signals[signal] : 0),
        stdout: stdout.toString('utf8'),
        stderr: diagnostics,
      });
    }
  });
}
