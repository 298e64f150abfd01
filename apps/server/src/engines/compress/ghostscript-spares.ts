// Ghostscript, started before a call needs it. A rewrite's own start (the PostScript interpreter's
// set-up and pdfwrite's) took 60-90 ms of a 100-170 ms rewrite of a one- to three-page document on
// this project's 2-core machine, on every call. So each rewrite leaves behind a Ghostscript with the
// same arguments, started and waiting on its standard input in a folder of its own, and the next
// rewrite with those arguments hands it its file: a hard link in that folder (the one file -dSAFER
// lets it read), the pages to write, then it takes the output away.
//
// One document per process, as when it is started for the call: nothing of a document stays in the
// process that writes the next one. (Ghostscript run on a second document in the same process numbered
// the second's links and outline entries after the first's pages: 29 of 71 files of the fixtures
// corpus came out different.) The output is the same as the command line's (`ghostscriptArgs`), which
// the log gives for each run, so that it can be repeated by hand.
//
// At most one waits per set of arguments (three levels, two interpreters); one left unused for
// IDLE_MS is ended. A waiting Ghostscript uses no CPU; its start is paid beside the call that took the
// last one, not on the path of the next.
import { link, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { type ToolResult, type ToolRunOptions, WaitingTool } from '../run-tool.js';
import type { EngineLog, WorkFolders } from '../types.js';
import { pdfInterpreterProgram, postscriptString } from './presets.js';

/** A spare nobody took for this long is ended: a server that compresses once an hour keeps none. */
const IDLE_MS = 5 * 60_000;
/** The names inside a spare's folder. */
const INPUT = 'input.pdf';
const OUTPUT = 'output.pdf';

export interface SpareRewrite {
  /** Every argument but the pages, the output and the input (presets.ts `pdfwriteArgs`). */
  args: readonly string[];
  inputPath: string;
  pageCount: number;
  /** Where the output goes, in the job's folder. */
  outputPath: string;
  /** The same run as one command line, for the log. */
  asked: readonly string[];
}

interface Spare {
  folder: string;
  tool: WaitingTool;
}

export class GhostscriptSpares {
  readonly #gs: string;
  readonly #folders: WorkFolders;
  readonly #log: EngineLog | undefined;
  readonly #waiting = new Map<string, { spare: Spare; timer: NodeJS.Timeout }>();
  readonly #starting = new Set<string>();
  #closed = false;

  constructor(gs: string, folders: WorkFolders, log?: EngineLog) {
    this.#gs = gs;
    this.#folders = folders;
    this.#log = log;
  }

  /**
   * Runs `rewrite` in the spare waiting with its arguments, or in one started for it, and starts the
   * next spare once it has ended. Resolves as runTool does; the output, where written, is at
   * `rewrite.outputPath`.
   */
  async rewrite(rewrite: SpareRewrite, options: ToolRunOptions): Promise<ToolResult> {
    const key = rewrite.args.join('\n');
    const spare = this.#take(key) ?? (await this.#start(rewrite.args));
    try {
      const input = join(spare.folder, INPUT);
      await link(rewrite.inputPath, input);
      const program = pdfInterpreterProgram(postscriptString(input), rewrite.pageCount);
      const result = await spare.tool.run(`${program}\n`, options, rewrite.asked);
      await rename(join(spare.folder, OUTPUT), rewrite.outputPath).catch((error: NodeJS.ErrnoException) => {
        // No output is the caller's to judge, as after any run.
        if (error.code !== 'ENOENT') throw error;
      });
      return result;
    } finally {
      void this.#end(spare);
      this.#refill(key, rewrite.args);
    }
  }

  /** Ends every waiting spare (server shutdown). */
  async close(): Promise<void> {
    this.#closed = true;
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const { timer } of waiting) clearTimeout(timer);
    await Promise.all(waiting.map(({ spare }) => this.#end(spare)));
  }

  /** The spare waiting with `key`'s arguments: one that ended has left already (`#refill`). */
  #take(key: string): Spare | undefined {
    const waiting = this.#waiting.get(key);
    if (waiting === undefined) return undefined;
    this.#waiting.delete(key);
    clearTimeout(waiting.timer);
    return waiting.spare;
  }

  async #start(args: readonly string[]): Promise<Spare> {
    const folder = await this.#folders.create('ghostscript-');
    const tool = new WaitingTool(
      this.#gs,
      [...args, `-sOutputFile=${OUTPUT}`, `--permit-file-read=${join(folder, INPUT)}`, '-'],
      { cwd: folder },
    );
    return { folder, tool };
  }

  /** Starts the next spare for `key` unless one waits or is starting. */
  #refill(key: string, args: readonly string[]): void {
    if (this.#closed || this.#waiting.has(key) || this.#starting.has(key)) return;
    this.#starting.add(key);
    this.#start(args).then(
      (spare) => {
        this.#starting.delete(key);
        if (this.#closed || this.#waiting.has(key)) {
          void this.#end(spare);
          return;
        }
        const drop = () => {
          const waiting = this.#waiting.get(key);
          if (waiting?.spare !== spare) return;
          this.#waiting.delete(key);
          clearTimeout(waiting.timer);
          void this.#end(spare);
        };
        const timer = setTimeout(drop, IDLE_MS);
        // A waiting spare never keeps the process alive on its own.
        timer.unref();
        this.#waiting.set(key, { spare, timer });
        // One killed while it waits (the machine's memory, an operator) leaves its place and its
        // folder at once, not at the next call or its idle time.
        spare.tool.onEnd(() => {
          if (this.#waiting.get(key)?.spare !== spare) return;
          this.#log?.warn('a waiting Ghostscript ended', { folder: spare.folder });
          drop();
        });
      },
      (error: unknown) => {
        this.#starting.delete(key);
        this.#log?.warn('Ghostscript could not be started ahead of a call', { error: String(error) });
      },
    );
  }

  /** Ends `spare` and removes its folder; resolves once the folder is gone (or could not be removed). */
  #end(spare: Spare): Promise<void> {
    spare.tool.discard();
    return this.#folders.remove(spare.folder).catch((error: unknown) => {
      this.#log?.warn("a waiting Ghostscript's folder could not be removed", { error: String(error) });
    });
  }
}
