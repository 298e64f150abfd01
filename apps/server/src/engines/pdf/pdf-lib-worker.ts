// Entry point of the pdf-lib worker thread (started by run-pdf-lib-task.ts, one per task). It runs one
// task from the table and posts one reply. InvalidInputError keeps its meaning across the thread
// boundary (its message is for the client); anything else is reported as an internal failure.
import { parentPort, workerData } from 'node:worker_threads';
import { InvalidInputError } from '../../errors.js';
import { type PdfLibReply, type PdfLibRequest, pdfLibTasks } from './pdf-lib-tasks.js';

async function reply(request: PdfLibRequest): Promise<PdfLibReply> {
  try {
    const task = pdfLibTasks[request.task] as (args: unknown) => Promise<unknown>;
    return { ok: true, value: await task(request.args) };
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    return {
      ok: false,
      invalidInput: failure instanceof InvalidInputError,
      message: failure.message,
      stack: failure.stack,
    };
  }
}

parentPort?.postMessage(await reply(workerData as PdfLibRequest));
