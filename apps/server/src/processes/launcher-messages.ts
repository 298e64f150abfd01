// What the server and its tool launcher (tool-launcher.ts, tool-launcher-main.ts) say to each other
// over the launcher's IPC channel, in Node's "advanced" serialization, so output travels as bytes.

/** Server to launcher: start one tool. */
export interface StartMessage {
  type: 'start';
  id: number;
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  niceness: number;
  /** The tool's standard input stays open until an InputMessage gives it; otherwise it reads nothing. */
  inputLater: boolean;
}

/** Server to launcher: the whole standard input of tool `id`, which is then closed. */
export interface InputMessage {
  type: 'input';
  id: number;
  chunk: Uint8Array;
}

export type LauncherRequest = StartMessage | InputMessage;

/** Launcher to server, about the tool `id`. */
export type ToolMessage =
  | { type: 'started'; id: number; pid: number }
  | { type: 'output'; id: number; stream: 'stdout' | 'stderr'; chunk: Uint8Array }
  | { type: 'failed'; id: number; error: SpawnFailure }
  | { type: 'closed'; id: number; exitCode: number | null; signal: NodeJS.Signals | null };

/** A spawn error's fields that callers read (`code: 'ENOENT'` for a missing binary). */
export interface SpawnFailure {
  message: string;
  code?: string | undefined;
  errno?: number | undefined;
  syscall?: string | undefined;
  path?: string | undefined;
}
