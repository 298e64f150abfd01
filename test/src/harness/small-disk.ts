// A small, real file system to fill (a full disk must be 507, never the client's
// fault): a tmpfs mounted on a fresh folder. Mounting needs root or CAP_SYS_ADMIN; where that is not
// permitted, `mountSmallDisk` says why and the suites using it skip.
import { execFile } from 'node:child_process';
import { mkdtemp, open, rm, statfs, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface SmallDisk {
  /** The mount point. */
  path: string;
  /** Fills the disk until `leaveBytes` (rounded down to pages) or less are free. */
  fill(leaveBytes?: number): Promise<void>;
  /** Removes what `fill` wrote. */
  empty(): Promise<void>;
  /** Unmounts it and removes the mount point. */
  remove(): Promise<void>;
}

/** Mounts a `sizeMiB` tmpfs; resolves undefined (after logging the reason) where that is not allowed. */
export async function mountSmallDisk(sizeMiB: number): Promise<SmallDisk | undefined> {
  const path = await mkdtemp(join(tmpdir(), 'pdn-small-disk-'));
  try {
    await execFileAsync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0700`, 'tmpfs', path]);
  } catch (error) {
    await rm(path, { recursive: true, force: true });
    console.warn(
      `[e2e] skipping the full-disk tests: cannot mount a tmpfs here (${(error as Error).message.trim()})`,
    );
    return undefined;
  }
  const filler = join(path, 'filler');
  return {
    path,
    async fill(leaveBytes = 0) {
      const { bavail, bsize } = await statfs(path);
      const handle = await open(filler, 'a');
      try {
        let toWrite = bavail * bsize - leaveBytes;
        const block = Buffer.alloc(64 * 1024, 0x20);
        while (toWrite > 0) {
          const { bytesWritten } = await handle.write(block, 0, Math.min(block.length, toWrite));
          toWrite -= bytesWritten;
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        await handle.close();
      }
    },
    async empty() {
      await unlink(filler).catch(() => {});
    },
    async remove() {
      await execFileAsync('umount', [path]).catch(() => {});
      await rm(path, { recursive: true, force: true });
    },
  };
}
