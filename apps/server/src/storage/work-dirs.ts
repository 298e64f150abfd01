// Per-request work folders under <dataDir>/tmp: uploads land here, engines write here, and the
// request removes its folder in `finally` whatever happened (issue #2: formidable leaves temp files
// behind even after a successful upload). Keeping them in the data folder, not /tmp, means outputs
// move into the store with a rename and one `rm` at start-up clears what a crash left behind.
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Whether process `pid` of this machine still runs (signal 0 checks without signalling). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class WorkDirs {
  private constructor(private readonly root: string) {}

  /** Opens the work area, removing folders a previous (crashed) process left behind. */
  static async open(dataDir: string): Promise<WorkDirs> {
    const root = join(dataDir, 'tmp');
    await rm(root, { recursive: true, force: true });
    await mkdir(root, { recursive: true, mode: 0o700 });
    return new WorkDirs(root);
  }

  /**
   * For processes sharing one data folder (`--role api` beside others, issue #16): a work area of this
   * process's own, `<dataDir>/tmp-processes/<pid>`, after removing those of processes no longer running.
   */
  static async openOwn(dataDir: string): Promise<WorkDirs> {
    const parent = join(dataDir, 'tmp-processes');
    await mkdir(parent, { recursive: true, mode: 0o700 });
    for (const name of await readdir(parent)) {
      const pid = Number(name);
      if (pid === process.pid || !(Number.isSafeInteger(pid) && alive(pid)))
        await rm(join(parent, name), { recursive: true, force: true, maxRetries: 3 });
    }
    const root = join(parent, String(process.pid));
    await mkdir(root, { mode: 0o700 });
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
