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
import type { SpawnFailure, StartMessage, ToolMessage } from './launcher-messages.js';
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

function start(message: StartMessage): void {
  const { id } = message;
  let child: ChildProcess;
  try {
    child = spawnInOwnGroup(message.file, message.args, {
      cwd: message.cwd,
      env: message.env,
      stdio: ['ignore', 'pipe', 'pipe'],
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
    if (!failed) send({ type: 'closed', id, exitCode, signal });
  });
}

process.on('message', (message: StartMessage) => start(message));
process.on('disconnect', () => process.exit(0));
