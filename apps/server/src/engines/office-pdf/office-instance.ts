// One warm LibreOffice: soffice.bin headless on a profile of its own, driven by a Python UNO bridge
// (assets/office/uno-bridge.py) that this process talks to in JSON lines on its stdin and stdout. Started
// like every tool (processes/spawn-tool.ts): its own process group, which a timeout kills whole, and the
// kernel's parent-death signal, so a killed server leaves no LibreOffice behind; under the largest plan's
// memory limit (the bridge lowers it to the caller's plan for each document); and, where the kernel
// lets this user make one, in a network namespace of its own with no interface up, so no document can
// fetch anything, whatever its links, images or data sources say.
import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { findSetpriv } from '../../processes/parent-death.js';
import { startTimeOf } from '../../processes/process-identity.js';
import { killGroup, spawnTool } from '../../processes/spawn-tool.js';
import { limitedCommand, type MemoryLimit } from '../run-tool.js';
import type { EngineLog } from '../types.js';
import type { OfficeFamily } from './office-format.js';
import { removeOfficePipes } from './office-pipes.js';

/** Same depth below the package root in src/ and dist/. */
const BRIDGE = fileURLToPath(new URL('../../../assets/office/uno-bridge.py', import.meta.url));
/** Below the server's own priority, like every tool run (run-tool.ts), so HTTP stays responsive. */
const NICENESS = 10;
const MAX_STDERR = 16 * 1024;
/** A first start makes the profile's caches: measured 2-4 s here; 60 s is a broken install. */
const START_TIMEOUT_MS = 60_000;

export interface OfficeInstanceOptions {
  /** Debian's python3 with python3-uno. */
  python: string;
  /** soffice.bin, started directly so that its pid is LibreOffice's own. */
  sofficeBin: string;
  /** The instance's own copy of the template profile. */
  profileDir: string;
  /** A name no other instance of this machine uses. */
  pipeName: string;
  memoryLimit: MemoryLimit | undefined;
  /** `unshare` and its arguments, where a network namespace can be made. */
  isolation: readonly string[];
  log: EngineLog;
}

export interface ConvertRequest {
  input: string;
  output: string;
  filter: string;
  family: OfficeFamily;
  /** The plan's memory for this document, in bytes. */
  memory: number;
  /** LibreOffice's PageRange; all pages when undefined. */
  pages: string | undefined;
  landscape: boolean;
  /** SelectPdfVersion: 0 plain PDF, 1-3 PDF/A-1b, -2b, -3b. */
  pdfa: number;
  pdfua: boolean;
  bookmarks: boolean;
}

/**
 * The document could not be read; `pages` named none of its pages (the message is its page count where
 * LibreOffice knows it); LibreOffice died under it; or something else failed.
 */
export type ConvertFailure = { kind: 'unreadable' | 'pages' | 'died' | 'failed'; message: string };
type Reply = ({ ok: true; tainted?: boolean } | ({ ok: false } & ConvertFailure)) & { id: number };

/** The instance ended (killed, crashed, out of memory) with a request unanswered. */
export class OfficeInstanceDied extends Error {
  override name = 'OfficeInstanceDied';
}

/** How long a killed LibreOffice is waited for; it has always gone within milliseconds. */
const GONE_WAIT_MS = 5_000;

/** Resolves once process `pid` has exited (gone, or a zombie waiting to be reaped), or after GONE_WAIT_MS. */
async function processGone(pid: number): Promise<void> {
  const until = Date.now() + GONE_WAIT_MS;
  while (Date.now() < until && (await startTimeOf(pid)) !== undefined)
    await new Promise((resolve) => setTimeout(resolve, 5));
}

export class OfficeInstance {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  readonly #pending = new Map<number, { resolve(reply: Reply): void; reject(error: Error): void }>();
  #ready: { resolve(): void; reject(error: Error): void } | undefined;
  #nextId = 1;
  #alive = true;
  #stderr = '';
  #stdout = '';
  /** Documents converted, for recycling. */
  conversions = 0;
  /** A document left something in it (fonts it carried): no other document may be converted here. */
  tainted = false;
  /** soffice.bin's own process, as the bridge started it. */
  #officePid: number | undefined;
  /** Settles once the bridge closed the last document and reads the next request, or has exited. */
  #idle: Promise<void> = Promise.resolve();
  #becameIdle: (() => void) | undefined;
  /** What names LibreOffice's sockets in /tmp, removed once it has gone (office-pipes.ts). */
  #pipes: { pipeName: string; profileUrl: string } | undefined;

  private constructor(child: ChildProcess, log: EngineLog) {
    this.#child = child;
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.#stderr = (this.#stderr + text).slice(-MAX_STDERR);
      log.debug?.('LibreOffice stderr', { pid: child.pid, stderr: text.trimEnd() });
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      this.#stdout += chunk.toString('utf8');
      for (let end = this.#stdout.indexOf('\n'); end !== -1; end = this.#stdout.indexOf('\n')) {
        const line = this.#stdout.slice(0, end);
        this.#stdout = this.#stdout.slice(end + 1);
        this.#receive(line);
      }
    });
    this.#exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.#alive = false;
        const how = signal === null ? `exited with code ${code}` : `was ended by ${signal}`;
        const said = this.#stderr.trim().split('\n').slice(-3).join(' | ');
        const died = new OfficeInstanceDied(`LibreOffice ${how}${said === '' ? '' : `: ${said}`}`);
        this.#ready?.reject(died);
        for (const pending of this.#pending.values()) pending.reject(died);
        this.#pending.clear();
        this.#becameIdle?.();
        resolve();
      });
    });
    // A failed spawn also emits exit; the error itself needs a listener or it is thrown. So does a
    // request written just as the instance died (EPIPE): its exit answers the request.
    child.on('error', () => {});
    child.stdin?.on('error', () => {});
  }

  static async start(o: OfficeInstanceOptions): Promise<OfficeInstance> {
    const setpriv = findSetpriv();
    const bridge = [
      o.python,
      BRIDGE,
      o.sofficeBin,
      pathToFileURL(o.profileDir).href,
      o.pipeName,
      ...(setpriv === null ? [] : [setpriv]),
    ];
    const isolated = [...o.isolation, ...bridge];
    const [file = '', ...args] = isolated;
    const [command, argv] =
      o.memoryLimit === undefined ? [file, args] : limitedCommand(o.memoryLimit, file, args);
    const child = spawnTool(command, argv, {
      cwd: o.profileDir,
      stdio: ['pipe', 'pipe', 'pipe'],
      // None of the server's secrets. HOME and TMPDIR in the instance's folder: nothing of one instance
      // is written where another, or anything else, would read it.
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        LANG: 'C.UTF-8',
        HOME: o.profileDir,
        TMPDIR: o.profileDir,
        SAL_USE_VCLPLUGIN: 'svp',
      },
    });
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, NICENESS);
      } catch {
        // Already gone: the start below fails.
      }
    }
    const instance = new OfficeInstance(child, o.log);
    instance.#pipes = { pipeName: o.pipeName, profileUrl: pathToFileURL(o.profileDir).href };
    const ready = new Promise<void>((resolve, reject) => {
      instance.#ready = { resolve, reject };
    });
    const timer = setTimeout(() => {
      instance.#ready?.reject(
        new OfficeInstanceDied(`LibreOffice did not start within ${START_TIMEOUT_MS} ms`),
      );
    }, START_TIMEOUT_MS);
    try {
      await ready;
    } catch (error) {
      await instance.terminate();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return instance;
  }

  get alive(): boolean {
    return this.#alive;
  }

  /**
   * Converts one document; a failure of the document resolves, the instance's death rejects. The answer
   * comes once the PDF is written; the bridge closes the document after it (`settled`).
   */
  convert(request: ConvertRequest): Promise<{ ok: true } | ({ ok: false } & ConvertFailure)> {
    if (!this.#alive) return Promise.reject(new OfficeInstanceDied('LibreOffice has exited'));
    const id = this.#nextId;
    this.#nextId += 1;
    this.#idle = new Promise((resolve) => {
      this.#becameIdle = resolve;
    });
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#child.stdin?.write(`${JSON.stringify({ ...request, id })}\n`);
    });
  }

  /**
   * Resolves once the last document is closed and the instance can take the next (then `alive`), or
   * once it has exited (not `alive`). A document that takes longer than `timeoutMs` to close has the
   * instance ended: it is in no state to take another.
   */
  async settled(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs);
    });
    try {
      if (await Promise.race([this.#idle.then(() => false), late])) await this.terminate();
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The memory LibreOffice holds for data now (Linux VmData: what its RLIMIT_DATA limits), 0 where it
   * cannot be read.
   */
  async dataBytes(): Promise<number> {
    if (this.#officePid === undefined) return 0;
    const status = await readFile(`/proc/${this.#officePid}/status`, 'utf8').catch(() => '');
    return Number(/VmData:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  }

  /** Kills the bridge and LibreOffice, with whatever they were doing. */
  async terminate(): Promise<void> {
    if (this.#alive) killGroup(this.#child.pid);
    await this.#exited;
    // The bridge's exit is heard first: soffice.bin, killed with it, takes a few milliseconds more to
    // give back its memory, and an instance started in that moment would run beside it.
    if (this.#officePid !== undefined) await processGone(this.#officePid);
    if (this.#pipes !== undefined) await removeOfficePipes(this.#pipes.pipeName, this.#pipes.profileUrl);
  }

  #receive(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    if ('idle' in message) {
      this.#becameIdle?.();
      this.#becameIdle = undefined;
      return;
    }
    if ('ready' in message) {
      if ('pid' in message && typeof message.pid === 'number') this.#officePid = message.pid;
      this.#ready?.resolve();
      this.#ready = undefined;
      return;
    }
    const reply = message as Reply;
    const pending = this.#pending.get(reply.id);
    if (pending === undefined) return;
    this.#pending.delete(reply.id);
    if (reply.ok && reply.tainted === true) this.tainted = true;
    pending.resolve(reply);
  }
}
