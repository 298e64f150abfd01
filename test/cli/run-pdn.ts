// Runs the BUILT `pdn` binary (apps/cli/dist/bin.js) as a subprocess, the way a person or a CI job
// does: real argv, real stdin/stdout pipes, real exit code, its own config home.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Workspace } from './workspace.js';

export const PDN_BIN = fileURLToPath(new URL('../../apps/cli/dist/bin.js', import.meta.url));

export interface PdnRun {
  code: number | null;
  /** Raw stdout: with `-o -` it is a PDF. */
  stdout: Buffer;
  stderr: string;
  /** stdout as text. */
  text: string;
}

export interface RunOptions {
  /** Variables added to a clean environment (no PDN_*, NO_COLOR or FORCE_COLOR inherited). */
  env?: Record<string, string>;
  cwd?: string;
  /** Bytes piped to stdin; stdin is closed empty when absent. */
  stdin?: Uint8Array;
}

export async function runPdn(args: readonly string[], options: RunOptions = {}): Promise<PdnRun> {
  if (!existsSync(PDN_BIN))
    throw new Error(`${PDN_BIN} is missing: build the CLI first (npx turbo run build --filter=@pdn/cli)`);
  const child = spawn(process.execPath, [PDN_BIN, ...args], {
    env: { ...cleanEnv(), ...options.env },
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdin.on('error', () => {}); // the CLI may exit (usage error) before reading stdin
  child.stdin.end(options.stdin ?? Buffer.alloc(0));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode) => resolve(exitCode));
  });
  const out = Buffer.concat(stdout);
  return { code, stdout: out, stderr: Buffer.concat(stderr).toString('utf8'), text: out.toString('utf8') };
}

/** Parses stdout as the one JSON document `--json` promises, failing with the output if it is not. */
export function jsonOf<T = CliReport>(run: PdnRun): T {
  try {
    return JSON.parse(run.text) as T;
  } catch {
    throw new Error(
      `stdout is not one JSON document (exit ${run.code}):\n${run.text}\nstderr:\n${run.stderr}`,
    );
  }
}

/** The --json document as apps/cli/README.md documents it. */
export interface CliReport {
  command: string;
  ok: boolean;
  summary: { total: number; succeeded: number; failed: number; not_processed: number; skipped: number };
  results: {
    input: string | string[] | null;
    status: 'succeeded' | 'failed' | 'not_processed' | 'skipped';
    /** Only on `skipped` items. */
    skip_reason?: 'output_exists' | 'pdn_output' | 'collected' | 'server_unreachable';
    request_id: string | null;
    data: Record<string, unknown> | null;
    outputs: (
      | { kind: 'file'; path: string; bytes: number }
      | { kind: 'stdout'; bytes: number }
      | { kind: 'url'; url: string; expires_at: string }
    )[];
    error: {
      code: string;
      message: string;
      status: number | null;
      request_id: string | null;
      retry_after?: number;
    } | null;
  }[];
  error: { code: string; message: string } | null;
}

function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name.startsWith('PDN_') || name === 'NO_COLOR' || name === 'FORCE_COLOR')
      continue;
    env[name] = value;
  }
  return env;
}

export interface SessionRunOptions extends RunOptions {
  /** Another key than the session's, e.g. a Free user's. */
  key?: string;
}

/**
 * `pdn` as a person runs it after `export PDN_API_KEY=… PDN_BASE_URL=…`: in the workspace, with its own
 * config home. `session` is read at each call, since keys and the server's URL exist only once the
 * suite's `beforeAll` has run.
 */
export function exportedPdn(ws: Workspace, session: () => { key: string; baseUrl: string }) {
  return (args: readonly string[], options: SessionRunOptions = {}): Promise<PdnRun> => {
    const { key, baseUrl } = session();
    return runPdn(args, {
      cwd: ws.dir,
      ...options,
      env: {
        PDN_API_KEY: options.key ?? key,
        PDN_BASE_URL: baseUrl,
        XDG_CONFIG_HOME: ws.configHome,
        ...options.env,
      },
    });
  };
}
