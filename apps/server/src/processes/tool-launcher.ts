// Tools start from a small process of their own, not from the server. Node starts a process by
// forking the one that asks, and a fork copies the asker's memory map: from the server, 180 MB and
// more, a start blocked its event loop 6-13 ms (measured on these 2 cores), every request waiting
// meanwhile; from a 50 MB Node process, about 2 ms, and off the server's loop. A compression starts
// five tools or more. So the server keeps one launcher (tool-launcher-main.ts) and asks it, over an
// IPC channel, to start each short tool; it is told the pid, the output and the end, and kills the
// tool's group itself on timeout or abort. Long-lived processes (OCR workers, LibreOffice, Chromium)
// are few and still start from here.
//
// The launcher starts with the first tool, dies with the server (the parent-death signal), and is
// started again by the next tool when it has died; the tools it was running then fail with an error
// and their groups are killed, as they lost the process that watched them.
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { InputMessage, StartMessage, ToolMessage } from './launcher-messages.js';
import { killGroup, spawnInOwnGroup, withToolMark } from './spawn-tool.js';
import { ensureToolReaper } from './tool-reaper.js';

/**
 * The built entry point: tests running the sources use the build's copy (turbo builds before it
 * tests); src/processes and dist/processes sit at the same depth below the package root.
 */
const LAUNCHER_MAIN = fileURLToPath(new URL('../../dist/processes/tool-launcher-main.js', import.meta.url));

export interface LaunchOptions {
  cwd: string;
  /** The tool's whole environment; this process's mark is added. */
  env: NodeJS.ProcessEnv;
  /** The tool's nice value, set by the launcher as soon as it has started it. */
  niceness: number;
  /** The tool waits for its standard input, given later by `LaunchedTool.input`; otherwise it reads none. */
  inputLater?: boolean;
}

/** What the caller of launchTool is told about its tool, in this order: output, then one ending. */
export interface ToolListener {
  output(stream: 'stdout' | 'stderr', chunk: Buffer): void;
  /** The tool could not be started (`code: 'ENOENT'` for a missing binary), or its launcher died. */
  failed(error: Error): void;
  closed(exitCode: number | null, signal: NodeJS.Signals | null): void;
}

/** A started tool: killing it kills its whole process group, now or as soon as its pid is known. */
export interface LaunchedTool {
  kill(): void;
  /** Writes the whole standard input of a tool started with `inputLater`, and closes it. */
  input(bytes: Uint8Array): void;
}

class Launch implements LaunchedTool {
  pid: number | undefined;
  #killed = false;
  constructor(
    readonly id: number,
    readonly listener: ToolListener,
    /** The launcher that started it, whose end fails it. */
    readonly launcher: ChildProcess,
  ) {}

  input(bytes: Uint8Array): void {
    const message: InputMessage = { type: 'input', id: this.id, chunk: bytes };
    // A launcher that died has failed this tool already.
    if (this.launcher.connected) this.launcher.send(message);
  }

  started(pid: number): void {
    this.pid = pid;
    if (this.#killed) killGroup(pid);
  }

  /**
   * The tool has exited: its pid, and the group it led, may go to another process (Linux gives freed
   * pids out again), which a later kill of this tool must not hit.
   */
  ended(): void {
    this.pid = undefined;
  }

  kill(): void {
    this.#killed = true;
    killGroup(this.pid);
  }
}

let launcher: ChildProcess | undefined;
const launches = new Map<number, Launch>();
let lastId = 0;

function route(message: ToolMessage): void {
  const launch = launches.get(message.id);
  if (launch === undefined) return;
  switch (message.type) {
    case 'started':
      launch.started(message.pid);
      return;
    case 'output':
      launch.listener.output(message.stream, Buffer.from(message.chunk));
      return;
    case 'failed':
      launches.delete(message.id);
      launch.ended();
      launch.listener.failed(Object.assign(new Error(message.error.message), message.error));
      return;
    case 'closed':
      launches.delete(message.id);
      launch.ended();
      launch.listener.closed(message.exitCode, message.signal);
  }
}

/**
 * Every tool of a launcher that died fails, its group killed: no one watches it any more. A new
 * launcher may already run by the time the old one's end is heard; only the old one's tools fail.
 */
function launcherEnded(child: ChildProcess): void {
  if (launcher === child) launcher = undefined;
  for (const [id, launch] of launches) {
    if (launch.launcher !== child) continue;
    launches.delete(id);
    killGroup(launch.pid);
    launch.ended();
    launch.listener.failed(new Error('the tool launcher ended while the tool ran'));
  }
}

function runningLauncher(): ChildProcess {
  if (launcher?.connected) return launcher;
  const child = spawnInOwnGroup(process.execPath, [LAUNCHER_MAIN], {
    env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8' },
    // Its own errors, should it have any, go where the server's go.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  child.on('message', route);
  child.on('disconnect', () => launcherEnded(child));
  child.on('exit', () => launcherEnded(child));
  child.on('error', () => launcherEnded(child));
  // It must not keep the server alive on its own: a running tool's timeout timer does that.
  child.unref();
  child.channel?.unref();
  launcher = child;
  return child;
}

/** Starts `file args...` through the launcher; `listener` hears its output and its end. */
export function launchTool(
  file: string,
  args: readonly string[],
  options: LaunchOptions,
  listener: ToolListener,
): LaunchedTool {
  ensureToolReaper();
  const id = ++lastId;
  const starter = runningLauncher();
  const launch = new Launch(id, listener, starter);
  launches.set(id, launch);
  const message: StartMessage = {
    type: 'start',
    id,
    file,
    args: [...args],
    cwd: options.cwd,
    env: withToolMark(options.env),
    niceness: options.niceness,
    inputLater: options.inputLater ?? false,
  };
  starter.send(message);
  return launch;
}

/** The launcher's pid while it runs (tests kill it to see its tools fail and it come back). */
export function toolLauncherPid(): number | undefined {
  return launcher?.connected ? launcher.pid : undefined;
}
