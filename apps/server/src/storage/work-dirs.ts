// Per-request work folders under <dataDir>/tmp: uploads land here, engines write here, and the
// request removes its folder in `finally` whatever happened (issue #2: formidable leaves temp files
// behind even after a successful upload). Keeping them in the data folder, not /tmp, means outputs
// move into the store with a rename and one `rm` at start-up clears what a crash left behind.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';

export class WorkDirs {
  private constructor(private readonly root: string) {}

  /** Opens the work area, removing folders a previous (crashed) process left behind. */
  static async open(dataDir: string): Promise<WorkDirs> {
    const root = join(dataDir, 'tmp');
    await rm(root, { recursive: true, force: true });
    await mkdir(root, { recursive: true, mode: 0o700 });
    return new WorkDirs(root);
  }

  create(): Promise<string> {
    return mkdtemp(join(this.root, 'req-'));
  }

  remove(dir: string): Promise<void> {
    // maxRetries: a tool killed a moment ago may still be closing files in the folder.
    return rm(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}
