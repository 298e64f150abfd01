// The watchdog that kills this process's tools once this process has died, however it died. The
// kernel's parent-death signal (parent-death.ts) ends each tool this process started the moment it
// dies, SIGKILL included, but not what those tools started in turn: OCRmyPDF's tesseract and
// Ghostscript runs, a shell's children. Those are handed to PID 1 and run on, some for minutes. So
// each process starts one watchdog beside its tools: `sh`, waiting to read the end of a pipe whose only
// writer is this process. A process's pipes close when it ends, by any means, so the read ends then.
// The shell then kills every process carrying this process's mark (marked-processes.ts) that one
// `grep` over /proc finds, and becomes `node reap-tools.js <mark>`, which looks again until nothing
// marked is left, killing each process's group too, and exits. Its own process group and session, so
// a signal to this process's group (a terminal's Ctrl-C, a supervisor killing the group) does not take
// it too.
//
// Why a shell, not Node: `sh` blocked in `read` holds 1.6 MB where an idle Node process holds 43 MB
// (measured here), for as long as the server runs. And Node took 0.5-1.1 s to start on this 2-core
// machine under load, where the shell's grep kills within milliseconds; Node's pass stays, for what
// forked meanwhile, what left the mark behind but not its group, and systems whose grep has no -z.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { TOOL_MARK_VARIABLE } from './marked-processes.js';

/**
 * This process's mark, in the environment of every tool it starts (spawn-tool.ts) and of their
 * children: random, so no other process, living or dead, ever carries it by chance.
 */
export const toolMark: string = randomUUID();

/**
 * The built entry point: tests running the sources use the build's copy (turbo builds before it
 * tests); src/processes and dist/processes sit at the same depth below the package root.
 */
const REAP_TOOLS = fileURLToPath(new URL('../../dist/processes/reap-tools.js', import.meta.url));

/**
 * Waits for the end of standard input (nothing is ever written to it), kills the processes whose
 * environment holds the mark `$1`, then runs the rest of its arguments with the mark after them.
 */
const WAIT_THEN_REAP = [
  'while read -r _; do :; done',
  'mark=$1; shift',
  `for environ in $(grep -lsxz -e "${TOOL_MARK_VARIABLE}=$mark" /proc/[0-9]*/environ); do`,
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template.
  '  pid=${environ#/proc/}; kill -KILL "${pid%/environ}" 2>/dev/null',
  'done',
  'exec "$@" "$mark"',
].join('\n');

/** After a failed start (no /bin/sh), how long before trying again; tools start meanwhile. */
const RETRY_MS = 60_000;

let reaper: ChildProcess | undefined;
let failedAt = Number.NEGATIVE_INFINITY;

/** Starts the watchdog unless it runs; called before each tool starts, so one that was killed comes back. */
export function ensureToolReaper(): void {
  if (reaper !== undefined && reaper.exitCode === null && reaper.signalCode === null) return;
  if (performance.now() - failedAt < RETRY_MS) return;
  const child = spawn(
    '/bin/sh',
    ['-c', WAIT_THEN_REAP, 'pdn-tool-reaper', toolMark, process.execPath, REAP_TOOLS],
    {
      // Only this process holds the pipe's other end: Node opens every descriptor close-on-exec, so
      // no tool inherits it and keeps it open after this process is gone.
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
    },
  );
  child.on('error', () => {
    failedAt = performance.now();
  });
  // It must not keep this process alive, nor its pipe: this process ending is what it waits for.
  child.unref();
  child.stdin?.on('error', () => {});
  (child.stdin as { unref?: () => void } | null)?.unref?.();
  reaper = child;
}

/** The watchdog's pid while it runs (tests kill it to see it come back). */
export function toolReaperPid(): number | undefined {
  return reaper?.exitCode === null && reaper.signalCode === null ? reaper.pid : undefined;
}
