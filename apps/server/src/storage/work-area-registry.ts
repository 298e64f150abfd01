// Where the processes of a machine say which work area is theirs, so that a dead one's area is found
// by any live one, whatever data folder either was started on: a folder of records in the temp folder
// (`$TMPDIR/pdn-processes-<uid>/`), one per running process, named for its work area. A process killed
// with SIGKILL cannot remove its own record or folder; another that reads the record, sees that the
// process it names no longer runs (processes/process-identity.ts), kills whatever still carries its
// tool mark and removes its area and the record.
//
// One folder per user: a record says what folder to delete, so only the user's own processes may write
// there. The folder is refused (and the process keeps to its own data folder's areas) unless it is a
// real folder owned by this user and writable by nobody else.
import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { ProcessIdentity } from '../processes/process-identity.js';

/** What a process says of itself. */
export interface WorkAreaRecord extends ProcessIdentity {
  /** Its work area: `<data folder>/tmp-processes/<name>`. */
  area: string;
  /** The mark in its tools' environment (processes/tool-reaper.ts). */
  toolMark: string;
}

/** A record being written is renamed into place within milliseconds: older, its writer died. */
const PARTIAL_WRITE_MS = 60_000;

/** The folder holding every work area of one data folder. */
export const AREAS_FOLDER = 'tmp-processes';

/** The registry of this user's processes on this machine, under the temp folder (TMPDIR). */
export function defaultRegistryDir(): string {
  return join(tmpdir(), `pdn-processes-${process.getuid?.() ?? 'user'}`);
}

/**
 * The record's file name: its area's name, which says whose it is, and a digest of the area's path, as
 * one process may have areas in several data folders (tests open several).
 */
function fileName(record: WorkAreaRecord): string {
  const digest = createHash('sha256').update(record.area).digest('hex').slice(0, 12);
  return `${basename(record.area)}-${digest}.json`;
}

function isRecord(value: unknown): value is WorkAreaRecord {
  const record = value as Partial<WorkAreaRecord> | null;
  return (
    typeof record === 'object' &&
    record !== null &&
    Number.isSafeInteger(record.pid) &&
    typeof record.startTime === 'string' &&
    typeof record.bootId === 'string' &&
    typeof record.pidNamespace === 'string' &&
    typeof record.toolMark === 'string' &&
    typeof record.area === 'string' &&
    // A record names a folder to delete: only ever a work area, never anything else.
    isAbsolute(record.area) &&
    basename(dirname(record.area)) === AREAS_FOLDER
  );
}

export class WorkAreaRegistry {
  private constructor(readonly dir: string) {}

  /**
   * Opens (making it if needed) the registry folder; answers why it cannot be used instead where it
   * is not a folder of this user's, closed to others.
   */
  static async open(dir = defaultRegistryDir()): Promise<WorkAreaRegistry | string> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const stat = await lstat(dir);
    const uid = process.getuid?.();
    if (!stat.isDirectory()) return `${dir} is not a folder`;
    if (uid !== undefined && stat.uid !== uid) return `${dir} belongs to another user`;
    if ((stat.mode & 0o022) !== 0) return `${dir} is writable by other users`;
    return new WorkAreaRegistry(dir);
  }

  #path(record: WorkAreaRecord): string {
    return join(this.dir, fileName(record));
  }

  /** Writes the record whole (a reader never sees half of one), replacing any of the same name. */
  async register(record: WorkAreaRecord): Promise<void> {
    // The folder may have been removed since (a temp-folder cleaner): made again.
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const path = this.#path(record);
    const partial = `${path}.${randomBytes(4).toString('hex')}.partial`;
    await writeFile(partial, JSON.stringify(record), { mode: 0o600 });
    await rename(partial, path);
  }

  async isRegistered(record: WorkAreaRecord): Promise<boolean> {
    return lstat(this.#path(record)).then(
      () => true,
      () => false,
    );
  }

  async unregister(record: WorkAreaRecord): Promise<void> {
    await rm(this.#path(record), { force: true });
  }

  /**
   * Every readable record. Files that are not one are removed (they could only mislead a sweeper), as
   * are the partial writes of a process killed while writing, once a minute old.
   */
  async records(): Promise<WorkAreaRecord[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    for (const name of names.filter((entry) => entry.endsWith('.partial'))) {
      const path = join(this.dir, name);
      const stat = await lstat(path).catch(() => undefined);
      if (stat !== undefined && Date.now() - stat.mtimeMs > PARTIAL_WRITE_MS) await rm(path, { force: true });
    }
    const found: WorkAreaRecord[] = [];
    for (const name of names.filter((entry) => entry.endsWith('.json'))) {
      const path = join(this.dir, name);
      const text = await readFile(path, 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      let record: unknown;
      try {
        record = JSON.parse(text);
      } catch {
        record = undefined;
      }
      if (isRecord(record) && fileName(record) === name) found.push(record);
      else await rm(path, { force: true });
    }
    return found;
  }
}
