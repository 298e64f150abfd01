// How every external process of the server is started (short tools through the launcher, see
// tool-launcher.ts; OCR processes, LibreOffice and the launcher itself from this process), so that
// none outlives the process that started it:
// - its own process group (detached), so a timeout, a cancel or a shutdown kills the tool and all it
//   started with one kill of the group;
// - the kernel's parent-death signal (parent-death.ts), so it dies the moment its starter dies,
//   SIGKILL included;
// - this process's mark in its environment, and the watchdog (tool-reaper.ts) running, so what the
//   tool started is found and killed after this process's death too.
import { type ChildProcess, type SpawnOptions, type StdioOptions, spawn } from 'node:child_process';
import { TOOL_MARK_VARIABLE } from './marked-processes.js';
import { withParentDeathSignal } from './parent-death.js';
import { ensureToolReaper, toolMark } from './tool-reaper.js';

export interface ToolSpawnOptions {
  cwd?: string;
  /** The whole environment of the tool (nothing is inherited); the mark is added to it. */
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
  serialization?: SpawnOptions['serialization'];
}

export function spawnTool(file: string, args: readonly string[], options: ToolSpawnOptions): ChildProcess {
  ensureToolReaper();
  return spawnInOwnGroup(file, args, { ...options, env: withToolMark(options.env) });
}

/** `env` with this process's mark, for a tool started on its behalf by the launcher. */
export function withToolMark(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, [TOOL_MARK_VARIABLE]: toolMark };
}

/**
 * Starts `file args...` in a process group of its own, dying with the calling thread's process, with
 * exactly `options.env`: what the launcher uses for the tools it starts, whose environment already
 * holds the server's mark.
 */
export function spawnInOwnGroup(
  file: string,
  args: readonly string[],
  options: ToolSpawnOptions,
): ChildProcess {
  const [command, argv] = withParentDeathSignal(file, args, options.env.PATH ?? '');
  return spawn(command, argv, {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: options.env,
    stdio: options.stdio,
    ...(options.serialization === undefined ? {} : { serialization: options.serialization }),
    detached: true,
    shell: false,
  });
}

/** Kills a process group: the tool and whatever it started that stayed in it. */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}
