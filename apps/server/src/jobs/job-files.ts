// A job's files, under <dataDir>/jobs/<id>/: `inputs/` (the uploads, moved in at submission, kept
// until the job ends, so a restart can run it again) and `work/` (the engines' folder for the current
// attempt, emptied at each start). Beside the database in the data folder, so the moves are renames.
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { OperationInput } from '../operations/index.js';
import type { JobInputFile } from './job-store.js';

export class JobFiles {
  private constructor(private readonly root: string) {}

  static async open(dataDir: string): Promise<JobFiles> {
    const root = join(dataDir, 'jobs');
    await mkdir(root, { recursive: true, mode: 0o700 });
    return new JobFiles(root);
  }

  /** Moves the uploaded files into the job's `inputs/` folder, in order. */
  async keep(id: string, uploads: readonly OperationInput[]): Promise<JobInputFile[]> {
    const inputs = join(this.root, id, 'inputs');
    await mkdir(inputs, { recursive: true, mode: 0o700 });
    const kept: JobInputFile[] = [];
    for (const [index, upload] of uploads.entries()) {
      const stored = String(index);
      await rename(upload.path, join(inputs, stored));
      kept.push({ stored, name: upload.name, size: upload.size });
    }
    return kept;
  }

  inputsOf(id: string, files: readonly JobInputFile[]): OperationInput[] {
    return files.map((file) => ({
      path: join(this.root, id, 'inputs', file.stored),
      name: file.name,
      size: file.size,
    }));
  }

  /** An empty work folder for the job's attempt (a previous attempt's leftovers are removed). */
  async freshWorkDir(id: string): Promise<string> {
    const dir = join(this.root, id, 'work');
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    await mkdir(dir, { mode: 0o700 });
    return dir;
  }

  remove(id: string): Promise<void> {
    // maxRetries: a tool killed a moment ago may still be closing files in the folder.
    return rm(join(this.root, id), { recursive: true, force: true, maxRetries: 3 });
  }

  /** Removes the folders of every job not in `keep` (ended, or never stored before a crash). */
  async prune(keep: ReadonlySet<string>): Promise<void> {
    for (const id of await readdir(this.root)) if (!keep.has(id)) await this.remove(id);
  }
}
