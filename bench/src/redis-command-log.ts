// Every command Redis runs, one by one, for the bench's backend-cost scenario: MONITOR shows each with
// its arguments, in order, and tells the commands a Lua script runs (source `lua`, right after the
// EVALSHA that ran them) from those a client sent (its `ip:port`); SLOWLOG with a threshold of 0 times
// each command a client sent (an EVALSHA's time holds its script's commands). Both cost Redis time of
// their own, so they run apart from the phases whose CPU is measured.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { Redis } from 'ioredis';
import { add } from './backend-counters.js';

export interface CommandLine {
  /** Redis's clock, ms (MONITOR's lines; 0 for SLOWLOG's entries). */
  at: number;
  /** `ip:port` of the client that sent it, or `lua` for a command a script ran. */
  source: string;
  args: string[];
  /** SLOWLOG's entries: the command's time, µs. */
  usec?: number;
}

/** Every command Redis runs from now until `stop()`, seen through MONITOR. */
export async function monitorRedis(url: string): Promise<{ lines: CommandLine[]; stop(): void }> {
  const client = new Redis(url, { lazyConnect: true });
  const monitor = await client.monitor();
  const lines: CommandLine[] = [];
  monitor.on('monitor', (time: string, args: string[], source: string) =>
    lines.push({ at: Number(time) * 1000, source, args }),
  );
  return {
    lines,
    stop() {
      monitor.disconnect();
      client.disconnect();
    },
  };
}

/** Times every command a client sends while on (SLOWLOG, threshold 0); `off()` restores Redis's defaults. */
export class CommandTimes {
  constructor(private readonly redis: Redis) {}

  async on(): Promise<void> {
    await this.redis.call('CONFIG', 'SET', 'slowlog-log-slower-than', '0', 'slowlog-max-len', '1000000');
    await this.redis.call('SLOWLOG', 'RESET');
  }

  /** The commands timed since `on()` or the last `take()`, oldest first. */
  async take(): Promise<CommandLine[]> {
    const entries = (await this.redis.call('SLOWLOG', 'GET', '-1')) as [
      number,
      number,
      number,
      string[],
      string,
      string,
    ][];
    await this.redis.call('SLOWLOG', 'RESET');
    return entries.reverse().map(([, , usec, args, source]) => ({ at: 0, source, args, usec }));
  }

  async off(): Promise<void> {
    await this.redis.call('CONFIG', 'SET', 'slowlog-log-slower-than', '10000', 'slowlog-max-len', '128');
  }
}

export function bullmqVersion(): string {
  const require = createRequire(import.meta.url);
  return (require('bullmq/package.json') as { version: string }).version;
}

/**
 * BullMQ's scripts by their SHA-1, as EVALSHA names them: BullMQ loads each with ioredis's
 * defineCommand, which hashes the script's text as shipped (dist/cjs/scripts).
 */
export function bullmqScripts(): Map<string, string> {
  const require = createRequire(import.meta.url);
  const scripts = require('bullmq/dist/cjs/scripts/index.js') as Record<
    string,
    { name: string; content: string }
  >;
  return new Map(
    Object.values(scripts).map(({ name, content }) => [
      createHash('sha1').update(content).digest('hex'),
      name,
    ]),
  );
}

/** A stretch of Redis's clock, ms. */
export interface Window {
  from: number;
  to: number;
}

/** MONITOR's lines within `window` but those of the clients in `own` (the bench's). */
export function linesIn(lines: readonly CommandLine[], window: Window, own: Set<string>): CommandLine[] {
  return lines.filter((line) => line.at >= window.from && line.at < window.to && !own.has(line.source));
}

/** A command's name, an EVALSHA's by its BullMQ script, else by the key it works on less `prefix`. */
export function commandNamer(scripts: Map<string, string>, prefix: string): (line: CommandLine) => string {
  return (line) => {
    const [command = '', sha = '', , key = ''] = line.args;
    const name = command.toLowerCase();
    if (name !== 'evalsha' && name !== 'eval') return name;
    return `${name} ${scripts.get(sha) ?? `on ${key.replace(prefix, '').replace(/:\d+$/, ':<id>')}`}`;
  };
}

/** What MONITOR saw. */
export interface Seen {
  /** The commands clients sent, by name. */
  sent: Map<string, number>;
  /** The commands scripts ran. */
  inScripts: number;
  /** Every command, a script's counted with the EVALSHA that ran it, by the process that sent it. */
  byProcess: Map<string, number>;
}

/** `lines` (MONITOR's, in order) told apart; `who` names the process of a client's `ip:port`. */
export function seenIn(
  lines: readonly CommandLine[],
  names: (line: CommandLine) => string,
  who: (source: string) => string,
): Seen {
  const seen: Seen = { sent: new Map(), inScripts: 0, byProcess: new Map() };
  // A script's commands follow the line of the EVALSHA that ran them.
  let sender = 'unknown';
  for (const line of lines) {
    if (line.source === 'lua') {
      seen.inScripts += 1;
    } else {
      sender = who(line.source);
      add(seen.sent, names(line));
    }
    add(seen.byProcess, sender);
  }
  return seen;
}

/** What `seen` saw over `window`, per call, less what `idle` saw over `idleWindow` at the same rate. */
export function seenPerCall(seen: Seen, window: Window, idle: Seen, idleWindow: Window, calls: number): Seen {
  const scale = (window.to - window.from) / (idleWindow.to - idleWindow.from);
  const net = (mine: Map<string, number>, theirs: Map<string, number>) => {
    const out = new Map<string, number>();
    for (const key of new Set([...mine.keys(), ...theirs.keys()]))
      out.set(key, ((mine.get(key) ?? 0) - (theirs.get(key) ?? 0) * scale) / calls);
    return out;
  };
  return {
    sent: net(seen.sent, idle.sent),
    inScripts: (seen.inScripts - idle.inScripts * scale) / calls,
    byProcess: net(seen.byProcess, idle.byProcess),
  };
}

/** SLOWLOG's entries but the bench's own: Redis's mean time per execution, µs, by command name. */
export function meanTimes(
  entries: readonly CommandLine[],
  names: (line: CommandLine) => string,
  own: Set<string>,
): Map<string, number> {
  const totals = new Map<string, { n: number; usec: number }>();
  for (const entry of entries) {
    if (own.has(entry.source)) continue;
    const name = names(entry);
    const total = totals.get(name) ?? { n: 0, usec: 0 };
    totals.set(name, { n: total.n + 1, usec: total.usec + (entry.usec ?? 0) });
  }
  return new Map([...totals].map(([name, { n, usec }]) => [name, usec / n]));
}

/** Every command `process` sent (its scripts' commands with them), by name as commandstats names them. */
export function commandsOf(
  lines: readonly CommandLine[],
  who: (source: string) => string,
  process: string,
): Map<string, number> {
  const commands = new Map<string, number>();
  let sender = 'unknown';
  for (const line of lines) {
    if (line.source !== 'lua') sender = who(line.source);
    if (sender === process) add(commands, (line.args[0] ?? '').toLowerCase());
  }
  return commands;
}
