// Runs one pdf-lib task (pdf-lib-tasks.ts) in its own worker thread. Never on the main thread: pdf-lib
// blocked the event loop for 236 s on a file with 100,000 pages and overflowed its stack on a deep page
// tree. The worker gets a heap and stack limit so such a file cannot take the process down,
// and is terminated when the tool timeout passes or the request is aborted.
//
// Node 20 cannot run a TypeScript worker, so the worker is always the compiled dist/ file. The URL is
// written from the package root and resolves the same from src/engines/pdf/ (vitest) and
// dist/engines/pdf/ (the server): unit tests need a build first, which `turbo run test` does.
import { Worker } from 'node:worker_threads';
import { InternalError, InvalidInputError } from '../../errors.js';
import { ToolAbortedError, ToolTimeoutError } from '../run-tool.js';
import { unprocessable } from './pdf-input-errors.js';
import type {
  PdfLibReply,
  PdfLibRequest,
  PdfLibTaskArgs,
  PdfLibTaskName,
  PdfLibTaskResult,
} from './pdf-lib-tasks.js';

/** Exported so tests that reach pdf-lib can refuse to run before a build, rather than fail oddly. */
export const PDF_LIB_WORKER_URL = new URL('../../../dist/engines/pdf/pdf-lib-worker.js', import.meta.url);

// pdf-lib was measured at about 2x the output size in memory; 2 GiB of heap covers the 1 GiB
// Enterprise upload cap with room to spare while bounding a runaway parse.
const HEAP_MB = 2048;
// V8's worker default, stated so a deep page tree fails as a catchable RangeError inside the worker.
const STACK_MB = 4;

export interface PdfLibRunOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /**
   * The label of the one input the task reads, where it reads one: pdf-lib running out of its heap
   * on that file (an xref stream claiming 2^31 entries did, found by the e2e PDF fuzzer) is the file's
   * doing, answered 400 naming it, not 500. A task over several inputs cannot tell which, so its
   * out-of-memory stays the server's.
   */
  blame?: string;
  /** The heap the worker may fill: HEAP_MB unless a test asks for less, to fill it in a moment. */
  heapMb?: number;
}

function replyError(task: string, reply: Extract<PdfLibReply, { ok: false }>): Error {
  if (reply.invalidInput) return new InvalidInputError(reply.message);
  const cause = new Error(reply.message);
  if (reply.stack !== undefined) cause.stack = reply.stack;
  return new InternalError(`pdf-lib ${task} failed: ${reply.message}`, { cause });
}

/**
 * Resolves with the task's result. Rejects with InvalidInputError for a bad input, ToolAbortedError
 * when `signal` aborts, and InternalError for anything else (timeout, heap limit, a crash).
 */
export function runPdfLibTask<K extends PdfLibTaskName>(
  task: K,
  args: PdfLibTaskArgs<K>,
  options: PdfLibRunOptions,
): Promise<PdfLibTaskResult<K>> {
  const command = `pdf-lib ${task}`;
  if (options.signal?.aborted) return Promise.reject(new ToolAbortedError(command));
  return new Promise((resolve, reject) => {
    const request: PdfLibRequest = { task, args };
    const worker = new Worker(PDF_LIB_WORKER_URL, {
      workerData: request,
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb ?? HEAP_MB, stackSizeMb: STACK_MB },
      // pdf-lib console.warns about every odd object it skips; that is not the operator's log.
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();

    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      outcome();
    };
    const timer = setTimeout(() => {
      const timeout = new ToolTimeoutError(command, options.timeoutMs);
      settle(() => reject(new InternalError(timeout.message, { cause: timeout })));
    }, options.timeoutMs);
    const onAbort = () => settle(() => reject(new ToolAbortedError(command)));
    options.signal?.addEventListener('abort', onAbort, { once: true });

    worker.on('message', (reply: PdfLibReply) => {
      settle(() =>
        reply.ok ? resolve(reply.value as PdfLibTaskResult<K>) : reject(replyError(task, reply)),
      );
    });
    // ERR_WORKER_OUT_OF_MEMORY (the heap limit) and uncaught errors arrive here.
    worker.on('error', (error: NodeJS.ErrnoException) => {
      const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      settle(() =>
        reject(
          outOfMemory && options.blame !== undefined
            ? unprocessable(options.blame)
            : new InternalError(`${command} worker failed: ${error.message}`, { cause: error }),
        ),
      );
    });
    worker.on('exit', (code) => {
      settle(() => reject(new InternalError(`${command} worker exited with code ${code} without replying`)));
    });
  });
}
