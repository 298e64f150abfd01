// The tool launcher's own process (see tool-launcher.ts for why it exists): a small Node process that
// starts the tools the server asks for and relays what they print and how they end. It starts each
// tool as the server would have (own process group, the parent-death signal, exactly the environment
// it is given, which holds the server's mark), lowers its priority, and nothing else: deciding what
// the exit means, timeouts and kills stay in the server, which signals the tool's group itself.
//
// It ends with the server: the kernel's parent-death signal kills it when the server dies, and it exits
// when its channel to the server closes, for systems without setpriv.
import type { ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import type {
  InputMessage,
  LauncherRequest,
  SpawnFailure,
  StartMessage,
  ToolMessage,
} from './launcher-messages.js';
import { spawnInOwnGroup } from './spawn-tool.js';

function send(message: ToolMessage): void {
  // A closed channel means the server is gone; 'disconnect' below ends this process.
  if (process.connected) process.send?.(message);
}

function failure(error: NodeJS.ErrnoException): SpawnFailure {
  return {
    message: error.message,
    code: error.code,
    errno: error.errno,
    syscall: error.syscall,
    path: error.path,
  };
}

/** Tools whose standard input is still to come, by id. */
const awaitingInput = new Map<number, ChildProcess>();

function start(message: StartMessage): void {
  const { id } = message;
  let child: ChildProcess;
  try {
    child = spawnInOwnGroup(message.file, message.args, {
      cwd: message.cwd,
      env: message.env,
      stdio: [message.inputLater ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    send({ type: 'failed', id, error: failure(error as NodeJS.ErrnoException) });
    return;
  }
  let failed = false;
  if (child.pid !== undefined) {
    try {
      setPriority(child.pid, message.niceness);
    } catch {
      // The tool already exited; nothing to lower.
    }
    send({ type: 'started', id, pid: child.pid });
  }
  child.stdout?.on('data', (chunk: Buffer) => send({ type: 'output', id, stream: 'stdout', chunk }));
  child.stderr?.on('data', (chunk: Buffer) => send({ type: 'output', id, stream: 'stderr', chunk }));
  child.on('error', (error) => {
    failed = true;
    send({ type: 'failed', id, error: failure(error) });
  });
  child.on('close', (exitCode, signal) => {
    awaitingInput.delete(id);
    if (!failed) send({ type: 'closed', id, exitCode, signal });
  });
  if (message.inputLater) {
    // A tool that exits before reading its input must not take this process down with EPIPE: its
    // exit code tells the server.
    child.stdin?.on('error', () => {});
    awaitingInput.set(id, child);
  }
}

function input(message: InputMessage): void {
  const child = awaitingInput.get(message.id);
  awaitingInput.delete(message.id);
  child?.stdin?.end(Buffer.from(message.chunk));
}

process.on('message', (message: LauncherRequest) => {
  if (message.type === 'start') start(message);
  else input(message);
});
process.on('disconnect', () => process.exit(0));
