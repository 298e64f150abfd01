// Runs the built `pdn` under a real pseudo-terminal, as a person at a terminal does (the
// report was lost to Ctrl-C only there, with the spinner running). util-linux `script` owns the
// terminal; bytes written to its stdin are typed into it, so `\x03` is a real Ctrl-C that the
// terminal's line discipline turns into SIGINT for pdn's process group.
import { spawn, spawnSync } from 'node:child_process';
import { PDN_BIN } from './run-pdn.js';

/** `script` from util-linux, which every Linux CI image has; the tests skip without it. */
export const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout?.includes(
  'util-linux',
);

export interface TerminalRun {
  /** pdn's exit code, as `script -e` returns it. */
  code: number | null;
  /**
   * Everything the terminal showed (stdout and stderr together, spinner frames), without colour and
   * cursor sequences, with `\n` line ends.
   */
  screen: string;
}

export interface Terminal {
  /** What the terminal has shown so far. */
  readonly screen: string;
  /** Types bytes into the terminal (`\x03` is Ctrl-C). */
  type(bytes: string): void;
  /** Resolves once the screen matches `pattern`; rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  done: Promise<TerminalRun>;
}

export interface TerminalOptions {
  cwd: string;
  env: Record<string, string>;
}

/** Starts `pdn args` in an 100x30 terminal (a 0-column terminal gets no spinner). */
export function pdnInTerminal(args: readonly string[], options: TerminalOptions): Terminal {
  const command = [
    'stty cols 100 rows 30;',
    'exec',
    quote(process.execPath),
    quote(PDN_BIN),
    ...args.map(quote),
  ];
  const child = spawn('script', ['-qefc', command.join(' '), '/dev/null'], {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      TERM: 'xterm',
      ...options.env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  const watchers = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    screen += plain(chunk.toString('utf8'));
    for (const watch of watchers) watch();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  child.stdin.on('error', () => {});
  const done = new Promise<TerminalRun>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      child.stdin.destroy();
      resolve({ code, screen });
    });
  });
  return {
    get screen() {
      return screen;
    },
    type: (bytes) => child.stdin.write(bytes),
    waitFor: (pattern, timeoutMs = 60_000) =>
      new Promise<void>((resolve, reject) => {
        const watch = () => {
          if (!pattern.test(screen)) return;
          watchers.delete(watch);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          watchers.delete(watch);
          reject(new Error(`the terminal never showed ${pattern}; it shows:\n${screen}`));
        }, timeoutMs);
        watchers.add(watch);
        watch();
      }),
    done,
  };
}

/** Drops ANSI control sequences (colour, cursor, synchronised output) and carriage returns. */
function plain(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI sequences start with ESC.
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
}

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
