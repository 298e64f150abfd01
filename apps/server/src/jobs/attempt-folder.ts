// A job attempt's own folder on the machine that runs it: the job's inputs fetched
// from the input store (a link in the data folder, a download from the bucket) and the engines' work
// folder, in one folder of this process's work area, removed with everything in it when the attempt
// ends. The stored inputs stay until the job ends, for an attempt after a restart, here or elsewhere.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { OperationInput } from '../operations/index.js';
import type { InputStore, WorkDirs } from '../storage/index.js';
import type { JobRecord } from './job-store.js';

export interface AttemptFolder {
  inputs: OperationInput[];
  workDir: string;
  /** Removes the local copies and whatever the engines left. */
  close(): Promise<void>;
}

export async function openAttemptFolder(
  workDirs: WorkDirs,
  store: Pick<InputStore, 'fetch'>,
  job: JobRecord,
): Promise<AttemptFolder> {
  const dir = await workDirs.create();
  try {
    const inputsDir = join(dir, 'inputs');
    const workDir = join(dir, 'work');
    // At once, as the folder they are in (WorkDirs.create).
    mkdirSync(inputsDir, { mode: 0o700 });
    mkdirSync(workDir, { mode: 0o700 });
    const inputs = await store.fetch(job.id, job.input.files, inputsDir);
    return { inputs, workDir, close: () => workDirs.remove(dir) };
  } catch (error) {
    await workDirs.remove(dir);
    throw error;
  }
}
