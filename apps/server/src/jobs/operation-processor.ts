// The work of a job (STYLE.md 17): its inputs fetched into a folder of the attempt's own, the
// operation run on them, its outputs published under ids made from the job's id (so an attempt run
// again overwrites rather than adds), the folder removed whatever happened. What a worker calls for
// every job, wherever it runs.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Turns } from '../engines/types.js';
import type { Logger } from '../logger.js';
import type { Operations } from '../operations/index.js';
import { type Downloads, outputIdFor, type WorkDirs } from '../storage/index.js';
import { openAttemptFolder } from './attempt-folder.js';
import { type JobProcessor, SlotHandedOn, type SlotTurns } from './job-queue.js';
import { OUTPUT_KEEP_MS } from './retention.js';

export interface ProcessorDeps {
  operations: Operations;
  /** This process's work area, where each attempt gets a folder of its own. */
  workDirs: WorkDirs;
  downloads: Downloads;
  now?: () => number;
}

/** The engines' view of the job's turns: a folder for finished units, holding those of earlier turns. */
function turnsOf(turns: SlotTurns, workDir: string, log: Logger): Turns {
  let fetched: Promise<string> | undefined;
  const keptDir = () => {
    fetched ??= (async () => {
      const dir = join(workDir, 'kept');
      await mkdir(dir, { mode: 0o700 });
      await turns.fetchKept(dir);
      return dir;
    })();
    return fetched;
  };
  return {
    keptDir,
    async between() {
      // Whatever keeps the job from handing on (the store or the bucket away) leaves it its slot: a
      // turn missed costs another user a wait, a failed job costs its owner the work.
      try {
        if (!(await turns.due())) return;
        await turns.keep(await keptDir());
      } catch (error) {
        log.warn('a job kept its slot: handing it on failed', { error });
        return;
      }
      throw new SlotHandedOn();
    },
  };
}

export function operationProcessor(deps: ProcessorDeps): JobProcessor {
  const { operations, workDirs, downloads, now = Date.now } = deps;
  return async (job, signal) => {
    const { record } = job;
    const folder = await openAttemptFolder(workDirs, job.inputs, record);
    try {
      // Stopped while its inputs were fetched: no work starts (an operation need not check first).
      signal.throwIfAborted();
      let made = 0;
      // Stamped as each output is stored, at the end of the work, so a long job's files still outlive its retention.
      const outputs = {
        publish: (path: string, filename: string, size?: number) =>
          downloads.publish(path, filename, {
            id: outputIdFor(record.id, made++),
            keepUntil: now() + OUTPUT_KEEP_MS,
            ...(size === undefined ? {} : { size }),
            ...(job.withEnd === undefined ? {} : { withEnd: job.withEnd }),
          }),
      };
      const work = {
        workDir: folder.workDir,
        signal,
        log: job.log,
        progress: job.progress,
        turns: job.turns === undefined ? undefined : turnsOf(job.turns, folder.workDir, job.log),
      };
      return await operations[record.operation].run(folder.inputs, record.input.params, work, outputs);
    } finally {
      // Started now, not waited for: the job's end is recorded and told meanwhile instead of after it
      // (1.7 ms a synchronous Office conversion on a quiet machine, 4 to 6 ms on a loaded one). Its
      // outputs have moved into the output store, work kept between turns into the input store; what a
      // stopped process leaves goes with its work area.
      folder
        .close()
        .catch((error: unknown) => job.log.warn("removing a job attempt's folder failed", { error }));
    }
  };
}
