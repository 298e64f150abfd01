// The run-state file ("a re-run with --resume re-attaches to the jobs of the interrupted
// run instead of submitting them again"). A batch records the Idempotency-Key of each submission
// before sending it, and the job once the server has accepted it; a run killed, cut off from the
// server or stopped before collecting every job leaves the file behind, and `--resume` reads it: a
// submission whose answer never got recorded is sent again with its key, and the server answers
// with the job the first one made, if it made one (openapi.yaml, "Idempotency"). It lives in the output folder (`-o DIR`), else in the
// current folder, named after what the run does, so two different batches never share one; it is
// removed once no job of the run is left to collect (README, "Jobs and --resume").
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * What names a run: the command, its inputs and every option that changes what the jobs make. Not
 * the server's URL: the same server may come back on another address, and a job another server
 * does not know is simply submitted again (run-jobs.ts, `reattach`).
 */
export interface RunIdentity {
  command: string;
  inputs: readonly (string | readonly string[])[];
  options: Record<string, unknown>;
}

/** One input's submission, its job once accepted, and whether its outputs were delivered. */
interface Entry {
  /** The submission's Idempotency-Key (absent in files written before keys were kept). */
  key?: string;
  job?: string;
  collected: boolean;
}

interface StateFile {
  version: 1;
  command: string;
  /** By input (`JSON.stringify` of the item's input: a path, `-`, or merge's list). */
  jobs: Record<string, Entry>;
}

export class RunState {
  readonly path: string;
  readonly #command: string;
  #jobs: Record<string, Entry> = {};
  /** Writes one after the other, so the file on disk is always the latest whole record. */
  #writing: Promise<void> = Promise.resolve();

  private constructor(path: string, command: string) {
    this.path = path;
    this.#command = command;
  }

  /** The state of this run in `folder` (not read yet: see `load`). */
  static for(folder: string, identity: RunIdentity): RunState {
    const material = JSON.stringify({
      ...identity,
      // The same files named from another folder are the same run; the names stay as given in reports.
      inputs: identity.inputs.map((input) =>
        typeof input === 'string' ? absolute(input) : input.map(absolute),
      ),
    });
    const digest = createHash('sha256').update(material).digest('hex').slice(0, 16);
    return new RunState(join(folder, `.pdn-run-${identity.command}-${digest}.json`), identity.command);
  }

  /** Reads the file an interrupted run left; false when there is none (or it is not ours to read). */
  async load(): Promise<boolean> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    const parsed = JSON.parse(text) as Partial<StateFile>;
    if (parsed.version !== 1 || typeof parsed.jobs !== 'object' || parsed.jobs === null) return false;
    this.#jobs = Object.fromEntries(
      Object.entries(parsed.jobs).filter(
        (entry): entry is [string, Entry] =>
          (typeof entry[1]?.job === 'string' || typeof entry[1]?.key === 'string') &&
          typeof entry[1].collected === 'boolean',
      ),
    );
    return true;
  }

  /** The job an earlier run submitted for `input` and did not collect, if it recorded one. */
  jobOf(input: unknown): string | undefined {
    const entry = this.#jobs[JSON.stringify(input)];
    return entry?.collected === false ? entry.job : undefined;
  }

  /** The Idempotency-Key of a submission of `input` an earlier run sent without recording the answer. */
  unansweredKey(input: unknown): string | undefined {
    const entry = this.#jobs[JSON.stringify(input)];
    return entry?.job === undefined ? entry?.key : undefined;
  }

  /** The earlier run delivered `input`'s outputs: --resume leaves it out. */
  wasCollected(input: unknown): boolean {
    return this.#jobs[JSON.stringify(input)]?.collected === true;
  }

  /** Submissions (answered or not) not collected yet. */
  get left(): number {
    return Object.values(this.#jobs).filter((entry) => !entry.collected).length;
  }

  /**
   * Records that `input` is about to be sent with `idempotencyKey`; resolves once it is on disk
   * (written whole, then renamed), so the request never leaves before its key is kept.
   */
  submitting(input: unknown, idempotencyKey: string): Promise<void> {
    this.#jobs[JSON.stringify(input)] = { key: idempotencyKey, collected: false };
    return this.#save();
  }

  /** Records `jobId`, the server's answer to `input`'s submission; resolves once it is on disk. */
  record(input: unknown, jobId: string): Promise<void> {
    const id = JSON.stringify(input);
    this.#jobs[id] = { ...this.#jobs[id], job: jobId, collected: false };
    return this.#save();
  }

  /** `input`'s outputs are delivered. */
  collected(input: unknown): Promise<void> {
    const entry = this.#jobs[JSON.stringify(input)];
    if (entry === undefined) return this.#writing;
    entry.collected = true;
    return this.#save();
  }

  /** Forgets `input`'s job and key (it will be submitted afresh, with a new key). */
  forget(input: unknown): Promise<void> {
    delete this.#jobs[JSON.stringify(input)];
    return this.#save();
  }

  /** The run has nothing left to collect: the file goes, with any temp file a killed run left. */
  async clear(): Promise<void> {
    this.#jobs = {};
    await this.#writing;
    const folder = dirname(this.path);
    const temps = (await readdir(folder).catch(() => [])).filter(
      (name) => name.startsWith(`${basename(this.path)}.`) && name.endsWith('.tmp'),
    );
    await Promise.all(
      [this.path, ...temps.map((name) => join(folder, name))].map((path) => rm(path, { force: true })),
    );
  }

  #save(): Promise<void> {
    const state: StateFile = { version: 1, command: this.#command, jobs: { ...this.#jobs } };
    this.#writing = this.#writing.then(async () => {
      // `-o DIR` is made when the first output is written; the state may come first.
      await mkdir(dirname(this.path), { recursive: true });
      const temp = `${this.path}.${randomBytes(4).toString('hex')}.tmp`;
      await writeFile(temp, `${JSON.stringify(state, null, 2)}\n`);
      await rename(temp, this.path);
    });
    return this.#writing;
  }
}

function absolute(input: string): string {
  return input === '-' ? input : resolve(input);
}
