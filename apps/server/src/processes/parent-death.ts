// The kernel's parent-death signal for every tool: started as `setpriv --pdeathsig KILL -- tool args`,
// util-linux's setpriv sets PR_SET_PDEATHSIG on itself and then becomes the tool, which keeps it across
// the exec. When the server dies, SIGKILL included, the kernel sends the tool SIGKILL at once: no
// handler of ours needs to run, and none can after a SIGKILL.
//
// Two limits of the signal, and what covers them. It is sent when the *thread* that forked the tool
// ends, not the process: Node forks from the thread that calls spawn, which for every tool is the main
// thread, alive as long as the process (no tool is started from a worker thread). And children do not
// inherit it: a tool's own children are left to the watchdog (tool-reaper.ts).
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where `file` is found the way execvp finds it, on `path`; undefined when nowhere. */
function resolve(file: string, path: string): string | undefined {
  if (file.includes('/')) return executable(file) ? file : undefined;
  for (const dir of path.split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, file);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

let setpriv: string | null | undefined;

/**
 * util-linux's setpriv when it is installed and takes `--pdeathsig` (util-linux 2.33 and later), asked
 * once: it runs itself under the option and must succeed.
 */
export function findSetpriv(): string | null {
  if (setpriv !== undefined) return setpriv;
  const found = resolve('setpriv', `${process.env.PATH ?? ''}${delimiter}/usr/bin${delimiter}/bin`);
  const works =
    found !== undefined &&
    spawnSync(found, ['--pdeathsig', 'KILL', '--', found, '--version'], { stdio: 'ignore', timeout: 10_000 })
      .status === 0;
  setpriv = works ? found : null;
  return setpriv;
}

/**
 * The command line that runs `file args...` with the parent-death signal set, or unchanged where
 * setpriv is missing, or where `file` cannot be found on `path`: then the spawn itself fails with
 * ENOENT, as callers expect of a missing binary, rather than setpriv exiting 127.
 */
export function withParentDeathSignal(
  file: string,
  args: readonly string[],
  path: string,
): [string, string[]] {
  const wrapper = findSetpriv();
  if (wrapper === null || resolve(file, path) === undefined) return [file, [...args]];
  return [wrapper, ['--pdeathsig', 'KILL', '--', file, ...args]];
}
