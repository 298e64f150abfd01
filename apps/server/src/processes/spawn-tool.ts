// How every external process of the server is started (tools through run-tool.ts, OCR processes
// through ocr-process.ts), so that none outlives the process that started it:
// - its own process group (detached), so a timeout, a cancel or a shutdown kills the tool and all it
//   started with one kill of the group;
// - the kernel's parent-death signal (parent-death.ts), so it dies the moment this process dies,
//   SIGKILL included;
// - this process's mark in its environment, and the watchdog (tool-reaper.ts) running, so what the
//   tool started is found and killed after this process's death too.
import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { TOOL_MARK_VARIABLE } from './marked-processes.js';
import { withParentDeathSignal } from './parent-death.js';
import { ensureToolReaper, toolMark } from './tool-reaper.js';

export interface ToolSpawnOptions {
  cwd?: string;
  /** The whole environment of the tool (nothing is inherited); the mark is added to it. */
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
}

export function spawnTool(file: string, args: readonly string[], options: ToolSpawnOptions): ChildProcess {
  ensureToolReaper();
  const env: NodeJS.ProcessEnv = { ...options.env, [TOOL_MARK_VARIABLE]: toolMark };
  const [command, argv] = withParentDeathSignal(file, args, env.PATH ?? '');
  return spawn(command, argv, {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env,
    stdio: options.stdio,
    detached: true,
    shell: false,
  });
}

/** Kills the tool's whole process group: the tool and whatever it started that stayed in it. */
export function killToolGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}
