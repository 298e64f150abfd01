// Starts the real, built reference server (`apps/server/dist/bin.js start`) as a subprocess on port 0
// with its own temp folders, and drives its admin commands (`keys create`, `keys revoke`, ...) on the
// same data folder, as end-to-end tests must. Used by every suite in this package and
// by the CLI tests in test/cli/.
//
//   const server = await startServer({ env: { PDN_PDF_ENGINE: 'pdf-lib' } });
//   const key = await server.createKey({ user: 'alice', plan: 'free' });
//   ... fetch(`${server.baseUrl}/api/v1/merge`, ...) ...
//   await server.stop(); // kills the process and removes its folders
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { languageDataEnv } from './language-data.js';

const execFileAsync = promisify(execFile);

/** The server's admin binary, built by `npx turbo run build --filter=@pdn/server`. */
export const SERVER_BIN = fileURLToPath(new URL('../../../apps/server/dist/bin.js', import.meta.url));

export type Plan = 'free' | 'premium' | 'business' | 'enterprise';

export interface StartOptions {
  /** Extra variables for the server (and its admin commands), e.g. `PDN_PDF_ENGINE: 'pdf-lib'`. */
  env?: Record<string, string>;
  /** How long to wait for the "listening" line before giving up. */
  startTimeoutMs?: number;
  /** `pdn-server start --role`; a worker's `baseUrl` serves only /healthz, /readyz, /metrics. Default: no flag (`all`). */
  role?: 'all' | 'api' | 'worker';
  /** Another server's data folder, for processes of one deployment sharing it; default: its own. */
  dataDir?: string;
}

export interface KeyOptions {
  user: string;
  plan?: Plan;
  /** A `pdn_test_` key instead of `pdn_live_`. */
  test?: boolean;
}

export interface AdminResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** The line `pdn-server start` prints once it accepts connections (`npm start`). */
const LISTENING = /pdn server listening on (http:\/\/\S+?)\/?(?:\s|$)/;
/** What a `--role worker` process prints instead: its port serves /healthz, /readyz and /metrics only. */
const WORKER_RUNNING = /pdn worker running on .*? on (http:\/\/\S+?)\/?(?:\s|$)/;
const KEY_FORMAT = /^pdn_(live|test)_[0-9a-f]{32}$/;
/** Key ids as the accounts module writes them (`key_` + hex), never the secret key itself. */
const KEY_ID = /\bkey_[0-9a-f]+\b/g;
/** Output kept for failure messages: enough to see a stack trace, bounded so a chatty server can't grow it. */
const KEPT_OUTPUT_CHARS = 64 * 1024;

export class TestServer {
  #child: ChildProcess | undefined;
  #exit: string | undefined;
  #output = '';
  #log = '';
  #baseUrl = '';

  private constructor(
    /** Parent of the data folder and of the server's TMPDIR; removed by `stop()`. */
    readonly rootDir: string,
    /** `PDN_DATA_DIR`: the SQLite file, the signing secret and the outputs live here. */
    readonly dataDir: string,
    /** `TMPDIR` of the server process, so any temp file it makes through os.tmpdir() is visible to tests. */
    readonly tmpDir: string,
    /** `PDN_SIGNING_SECRET`, so tests can forge URLs that are validly signed (e.g. already expired). */
    readonly signingSecret: string,
    /** The whole environment the server runs with. */
    readonly env: Readonly<Record<string, string>>,
    /** The arguments after `start`. */
    readonly startArgs: readonly string[],
  ) {}

  static async start(options: StartOptions = {}): Promise<TestServer> {
    if (!existsSync(SERVER_BIN)) {
      throw new Error(
        `${SERVER_BIN} is missing: build the server first (npx turbo run build --filter=@pdn/server)`,
      );
    }
    const rootDir = await mkdtemp(join(tmpdir(), 'pdn-e2e-'));
    const dataDir = options.dataDir ?? join(rootDir, 'data');
    const tmpDir = join(rootDir, 'tmp');
    await mkdir(tmpDir);
    const signingSecret = randomBytes(32).toString('hex');
    const env = {
      ...inheritedEnv(),
      PORT: '0',
      HOST: '127.0.0.1',
      PDN_DATA_DIR: dataDir,
      PDN_SIGNING_SECRET: signingSecret,
      // Quiet keeps test output readable; PDN_E2E_SERVER_LOG=info shows the servers' logs in failures.
      PDN_LOG_LEVEL: process.env.PDN_E2E_SERVER_LOG ?? 'quiet',
      TMPDIR: tmpDir,
      // No balancer in front: a stop need not wait for one to notice (shutdown.test.ts sets its own).
      PDN_DRAIN_DELAY_MS: '0',
      ...languageDataEnv(),
      ...options.env,
    };
    const startArgs = options.role === undefined ? [] : ['--role', options.role];
    const server = new TestServer(rootDir, dataDir, tmpDir, signingSecret, env, startArgs);
    try {
      await server.#spawn(options.startTimeoutMs ?? 30_000);
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  /** `http://127.0.0.1:<port>`, without a trailing slash. Changes after `restart()`. */
  get baseUrl(): string {
    return this.#baseUrl;
  }

  /** Process id of the running server, e.g. to read its memory high-water mark (bench scenario 6). */
  get pid(): number {
    const pid = this.#child?.pid;
    if (pid === undefined) throw new Error('the server is not running');
    return pid;
  }

  /** How the server process ended, if it has (`undefined` while it runs or after `kill()`). */
  get exit(): string | undefined {
    return this.#exit;
  }

  /** What the server printed so far (tail), for failure messages. */
  get output(): string {
    return this.#output;
  }

  /** What the server wrote on stderr so far (tail): its log, which nothing else may write to. */
  get log(): string {
    return this.#log;
  }

  /** Absolute URL for a path such as `/api/v1/merge` or a signed download URL. */
  url(path: string): string {
    return new URL(path, `${this.#baseUrl}/`).toString();
  }

  /**
   * Runs `pdn-server <args...>` with the server's environment (so on its data folder), plus `env` if
   * given, in `cwd` if given. Never throws on a non-zero exit.
   */
  async admin(
    args: readonly string[],
    options: { cwd?: string; env?: Record<string, string> } = {},
  ): Promise<AdminResult> {
    try {
      const { stdout, stderr } = await execFileAsync(process.execPath, [SERVER_BIN, ...args], {
        env: { ...this.env, ...options.env },
        timeout: 30_000,
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      });
      return { exitCode: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: unknown; stdout?: string; stderr?: string };
      if (typeof failed.code !== 'number') throw error;
      return { exitCode: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
    }
  }

  /** `pdn-server keys create`: creates the user if needed and returns the new key (last stdout line). */
  async createKey(options: KeyOptions): Promise<string> {
    const args = ['keys', 'create', '--user', options.user, '--plan', options.plan ?? 'premium'];
    if (options.test) args.push('--test');
    const result = await this.admin(args);
    const key = lastLine(result.stdout);
    if (result.exitCode !== 0 || !KEY_FORMAT.test(key)) {
      throw new Error(
        `keys create ${args.join(' ')} failed (exit ${result.exitCode}):\n${result.stdout}${result.stderr}`,
      );
    }
    return key;
  }

  /** Ids of a user's keys (`pdn-server keys list --user NAME`), oldest first. */
  async keyIds(user: string): Promise<string[]> {
    const result = await this.admin(['keys', 'list', '--user', user]);
    if (result.exitCode !== 0)
      throw new Error(`keys list failed (exit ${result.exitCode}):\n${result.stderr}`);
    return [...result.stdout.matchAll(KEY_ID)].map((match) => match[0]);
  }

  /** `pdn-server keys revoke ID`. */
  async revokeKey(id: string): Promise<void> {
    const result = await this.admin(['keys', 'revoke', id]);
    if (result.exitCode !== 0)
      throw new Error(`keys revoke ${id} failed (exit ${result.exitCode}):\n${result.stderr}`);
  }

  /** Stops the process (SIGTERM, then SIGKILL after a grace period) but keeps the data folder. */
  async kill(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const grace = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(grace);
  }

  /**
   * Sends `signal` (SIGTERM: a supervisor stopping the server) without waiting for a grace period of
   * its own, and resolves with how the process ended, however long its shutdown takes.
   */
  async signal(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const child = this.#child;
    if (!child) throw new Error('the server is not running');
    this.#child = undefined;
    if (child.exitCode !== null || child.signalCode !== null)
      return { code: child.exitCode, signal: child.signalCode };
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, how) => resolve({ code, signal: how })),
    );
    child.kill(signal);
    return exited;
  }

  /** Stops the server and starts it again on the same data folder (a new port). */
  async restart(startTimeoutMs = 30_000): Promise<void> {
    await this.kill();
    await this.#spawn(startTimeoutMs);
  }

  /** Stops the server and removes every folder it used. Safe to call twice. */
  async stop(): Promise<void> {
    await this.kill();
    await rm(this.rootDir, { recursive: true, force: true });
  }

  async #spawn(timeoutMs: number): Promise<void> {
    this.#output = '';
    this.#log = '';
    this.#exit = undefined;
    const child = spawn(process.execPath, [SERVER_BIN, 'start', ...this.startArgs], {
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    this.#baseUrl = await new Promise<string>((resolve, reject) => {
      const fail = (reason: string) => {
        clearTimeout(timer);
        reject(new Error(`pdn-server start ${reason}; its output:\n${this.#output}`));
      };
      const timer = setTimeout(() => fail(`printed no "listening" line within ${timeoutMs} ms`), timeoutMs);
      let listening = false;
      const onData = (chunk: Buffer) => {
        this.#output = (this.#output + chunk.toString('utf8')).slice(-KEPT_OUTPUT_CHARS);
        if (listening) return;
        const match = LISTENING.exec(this.#output) ?? WORKER_RUNNING.exec(this.#output);
        if (match) {
          listening = true;
          clearTimeout(timer);
          child.off('exit', onExit);
          // kill() forgets the child first, so only a death nobody asked for is recorded.
          child.once('exit', (code, signal) => {
            if (this.#child === child) this.#exit = `exited unexpectedly (code ${code}, signal ${signal})`;
          });
          resolve(match[1] as string);
        }
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
        fail(`exited early (code ${code}, signal ${signal})`);
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.stderr?.on('data', (chunk: Buffer) => {
        this.#log = (this.#log + chunk.toString('utf8')).slice(-KEPT_OUTPUT_CHARS);
      });
      child.once('exit', onExit);
      child.once('error', (error) => fail(`could not be spawned: ${error.message}`));
    });
  }
}

/** Starts a server; see TestServer.start. */
export function startServer(options: StartOptions = {}): Promise<TestServer> {
  return TestServer.start(options);
}

/** The parent's environment minus any PDN_* setting, so a developer's shell can't change a test. */
function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('PDN_') && name !== 'PORT' && name !== 'HOST')
      env[name] = value;
  }
  return env;
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return (lines[lines.length - 1] ?? '').trim();
}
