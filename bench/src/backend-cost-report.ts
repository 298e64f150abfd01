// The backend-cost scenario's figures as rows, tables and the trace BENCH_BACKEND_TRACE asks for: per
// call of each kind, the Redis commands (Lua's included) and PostgreSQL statements, against the bare
// BullMQ cycle and the targets; what each idle process sends a second; where the commands go.
import { isNested, pgTopLevel, sum, type Work } from './backend-counters.js';
import { bullmqVersion, type CommandLine, type Seen } from './redis-command-log.js';
import { type Row, table } from './report.js';

export const SCENARIO = '8b. Backend cost per call';
/** A small synchronous call: at most the bare BullMQ cycle plus this many Redis commands, Lua's included. */
const SYNC_REDIS_OVER_CYCLE = 10;
const SYNC_STATEMENTS = 5;
/** A refused call (429, 401): at most this many Redis commands, and as many PostgreSQL statements. */
const REFUSED_MAX = 3;

/** A kind of call's figures, per call, the idle background subtracted. */
export interface Measured {
  /** `sync`, `429`, `401`, `async`, `poll` or `BullMQ cycle`, and what the rows call it. */
  name: string;
  title: string;
  calls: number;
  each: Work;
  seen: Seen;
  /** Redis's mean time per command sent, µs, by name (SLOWLOG). */
  usecEach: Map<string, number>;
}

export interface Idle {
  /** Per second, each process's own commands and statements (its Redis CPU is not told apart). */
  api: Work;
  worker: Work;
  /** Redis's CPU a second with both processes idle, less Redis's with none. */
  redisCpuSeconds: number;
  seconds: number;
}

/** One decimal (or `digits`), with no "-0.0" for a count that idled away to nothing. */
function fixed(value: number, digits = 1): string {
  const text = value.toFixed(digits);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
}

const µs = (seconds: number) => `${Math.max(0, seconds * 1e6).toFixed(0)} µs`;

/** The largest entries of `counts`, as `name value`. */
function top(counts: Map<string, number>, limit = 8, digits = 1): string {
  return [...counts]
    .filter(([, value]) => value >= 0.5 * 10 ** -digits)
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, value]) => `${name} ${fixed(value, digits)}`)
    .join(', ');
}

/** Redis's time in the commands sent per call, seconds: each one's SLOWLOG mean times its count. */
function sentSeconds(m: Measured): number {
  let usec = 0;
  for (const [name, times] of m.seen.sent) usec += (m.usecEach.get(name) ?? 0) * times;
  return usec / 1e6;
}

function cpu(m: Measured): string {
  const seconds = m.each.redisCpuSeconds;
  const carried =
    seconds > 1e-6 ? `${Math.round(1 / seconds).toLocaleString('en-US')} a second` : 'too many to tell';
  return `Redis CPU ${µs(seconds)} per call (${µs(sentSeconds(m))} of it running the commands, SLOWLOG), so one Redis core would carry ${carried}`;
}

const byProcess = (counts: Map<string, number>) =>
  ['api', 'worker'].map((process) => `${process} ${fixed(counts.get(process) ?? 0)}`).join(', ');

function costNote(m: Measured): string {
  const nested = sum(m.each.pg) - pgTopLevel(m.each);
  return [
    `Redis: ${fixed(sum(m.seen.sent))} sent by pdn's processes, ${fixed(m.seen.inScripts)} run inside its Lua scripts (MONITOR), ${byProcess(m.seen.byProcess)}; sent: ${top(m.seen.sent) || 'none'}; ${cpu(m)}`,
    `PostgreSQL: ${byProcess(m.each.pgByRole)}${nested >= 0.05 ? `, ${fixed(nested)} nested statements beside (a foreign key's check)` : ''}; ${m.each.pgMs.toFixed(3)} ms of execution per call`,
    `${m.calls} calls one after another, ${(m.each.seconds * 1000).toFixed(1)} ms each, the idle deployment's background subtracted`,
  ].join('. ');
}

/** The bare BullMQ cycles measured beside pdn's calls. */
export interface Cycles {
  /** One worker, idle between jobs as between pdn's calls: the target's floor. */
  floor: Measured;
  /** One worker, its jobs back to back. */
  backToBack: Measured;
  /** As many workers as pdn's worker process runs, idle between jobs. */
  matched: Measured;
}

/** One row per kind, one per bare cycle, one per idle process. */
export function rowsOf(measured: Measured[], cycles: Cycles, idle: Idle): Row[] {
  const { floor: cycle, matched } = cycles;
  const redis = (m: Measured) => sum(m.each.redis);
  // Statements counted as pg_stat_statements' track = all counts them: a foreign key's check inside an
  // INSERT is one more.
  const statements = (m: Measured) => sum(m.each.pg);
  const perCall = (m: Measured) => `${fixed(redis(m))} Redis, ${fixed(statements(m))} PostgreSQL`;
  const rows: Row[] = measured.map((m) => {
    const [r, p] = [redis(m), statements(m)];
    const row: Row = {
      scenario: SCENARIO,
      case: `${m.title}, per call: Redis commands (those run inside Lua scripts included) and PostgreSQL statements`,
      pdn: perCall(m),
      baseline: '',
      ratio: null,
      target: '',
      met: null,
      note: costNote(m),
    };
    if (m.name === 'sync') {
      const allowed = redis(cycle) + SYNC_REDIS_OVER_CYCLE;
      const missed = [
        r > allowed ? `${fixed(r - allowed)} Redis commands` : '',
        p > SYNC_STATEMENTS ? `${fixed(p - SYNC_STATEMENTS)} PostgreSQL statements` : '',
      ].filter(Boolean);
      return {
        ...row,
        case: `${m.title} through an --role api and an --role worker process, per call: Redis commands (those run inside Lua scripts included) and PostgreSQL statements`,
        baseline: `bare BullMQ cycle ${fixed(redis(cycle))} Redis`,
        ratio: r / redis(cycle),
        target: `Redis <= cycle + ${SYNC_REDIS_OVER_CYCLE} (${fixed(allowed)}), PostgreSQL <= ${SYNC_STATEMENTS}`,
        met: missed.length === 0,
        note: `${missed.length > 0 ? `missed by ${missed.join(' and ')}. ` : ''}beside the bare cycle with pdn's workers (${fixed(redis(matched))} Redis): ${fixed(r - redis(matched))} more. ${costNote(m)}; where they go: the tables below`,
      };
    }
    // A refused call costs a whole number of each; the mean over the phase carries whatever periodic
    // work (a minute's look for stranded jobs) fell in it, a tenth or so: the nearest whole number counts.
    const within = (n: number) => Math.round(n) <= REFUSED_MAX;
    if (m.name === '429' || m.name === '401')
      return { ...row, target: `<= ${REFUSED_MAX} each`, met: within(r) && within(p) };
    if (m.name === 'async')
      return { ...row, baseline: `bare BullMQ cycle ${fixed(redis(cycle))} Redis`, ratio: r / redis(cycle) };
    return row;
  });
  for (const bare of [cycle, cycles.backToBack, matched])
    rows.push({
      scenario: SCENARIO,
      case: `${bare.title} (a job added, run by a worker, its end told to one waiter through QueueEvents), per job`,
      pdn: `${fixed(redis(bare))} Redis`,
      baseline: '',
      ratio: null,
      target: '',
      met: null,
      note: `BullMQ ${bullmqVersion()} in the bench process on the same Redis before pdn starts, removeOnComplete: ${fixed(sum(bare.seen.sent))} sent by its clients, ${fixed(bare.seen.inScripts)} inside its scripts (MONITOR); sent: ${top(bare.seen.sent)}; ${cpu(bare)}. ${bare.calls} jobs one at a time, ${(bare.each.seconds * 1000).toFixed(1)} ms each, the idle loop's background subtracted`,
    });
  for (const role of ['api', 'worker'] as const) {
    const work = idle[role];
    rows.push({
      scenario: SCENARIO,
      case: `an idle --role ${role} process, per second: Redis commands (Lua's included) and PostgreSQL statements`,
      pdn: `${fixed(sum(work.redis), 2)} Redis/s, ${fixed(pgTopLevel(work), 2)} PostgreSQL/s`,
      baseline: '',
      ratio: null,
      target: '',
      met: null,
      note: `both processes idle for ${idle.seconds} s, each one's commands told apart by its connections (MONITOR; a script's commands with the EVALSHA that ran them) and its statements by its PostgreSQL role; Redis: ${top(work.redis, 8, 2) || 'none'}; PostgreSQL: ${top(work.pg, 4, 2) || 'none'}; Redis CPU for both processes ${µs(idle.redisCpuSeconds)} a second (less Redis's with no pdn process). ${role === 'api' ? "Work done every 60 s (the output sweep, forgetting old jobs, the feeder's look for stranded jobs) may fall outside a window this short" : "Its periodic work (BullMQ's stalled-jobs check and its entry in the list of workers every 10 s, its blocking read's 5 s timeout) recurs within it"}`,
    });
  }
  return rows;
}

const shortened = (text: string, length: number) =>
  text.length > length ? `${text.slice(0, length - 3)}...` : text;

/** The tables of where the commands and statements go. */
export function detailsOf(
  measured: Measured[],
  cycle: Measured,
  idle: Idle,
): { title: string; markdown: string }[] {
  const columns: [string, Work][] = [
    ...measured.map((m): [string, Work] => [m.name, m.each]),
    [cycle.name, cycle.each],
    ['idle api /s', idle.api],
    ['idle worker /s', idle.worker],
  ];
  const grid = (pick: (work: Work) => Map<string, number>, label: (key: string) => string) => {
    const weight = (key: string) =>
      columns.reduce((total, [, work]) => total + (pick(work).get(key) ?? 0), 0);
    const keys = [
      ...new Set(
        columns.flatMap(([, work]) =>
          [...pick(work)].filter(([, n]) => Math.abs(n) >= 0.05).map(([key]) => key),
        ),
      ),
    ].sort((a, b) => weight(b) - weight(a));
    return table(
      ['', ...columns.map(([name]) => name)],
      [
        ...keys.map((key) => [label(key), ...columns.map(([, work]) => fixed(pick(work).get(key) ?? 0))]),
        ['all', ...columns.map(([, work]) => fixed(sum(pick(work))))],
      ],
    );
  };
  const timed = (m: Measured) =>
    [...m.seen.sent]
      .filter(([, n]) => n >= 0.05)
      .sort((a, b) => b[1] - a[1])
      .map(([name, n]) => `${name} ${fixed(n)} x ${(m.usecEach.get(name) ?? 0).toFixed(0)} µs`)
      .join(', ');
  const sent = table(
    [
      '',
      'sent per call',
      'inside scripts per call',
      'sent, by command: per call x Redis time each (SLOWLOG)',
    ],
    [...measured, cycle].map((m) => [m.name, fixed(sum(m.seen.sent)), fixed(m.seen.inScripts), timed(m)]),
  );
  return [
    {
      title: 'Backend cost per call: Redis commands (INFO commandstats, idle subtracted)',
      markdown: [
        'Per call of each kind (sync: a small synchronous merge; 429 and 401: refused merges; async: a merge with `Prefer: respond-async` and its job run to its end; poll: a GET of a finished job), per job of the bare BullMQ cycle, and per second of each idle process. A command a Lua script runs counts under its own name, beside the EVALSHA that ran it.',
        '',
        grid(
          (work) => work.redis,
          (key) => `\`${key}\``,
        ),
        '',
        "The commands pdn's processes sent (MONITOR over as many calls again; EVALSHA named by its BullMQ script, or by the key it works on), each with Redis's mean time for it (an EVALSHA's holds its script's commands):",
        '',
        sent,
      ].join('\n'),
    },
    {
      title: 'Backend cost per call: PostgreSQL statements (pg_stat_statements, idle subtracted)',
      markdown: `By the process that ran them (each connects as a role of its own); nested statements are those PostgreSQL runs inside another (a foreign key's check), and "all" counts them.\n\n${grid(
        (work) => work.pg,
        (key) => `${isNested(key) ? '(nested) ' : ''}\`${shortened(key.replace('(nested) ', ''), 150)}\``,
      )}`,
    },
  ];
}

/** BENCH_BACKEND_TRACE's text: every command of one call of each kind, the statements, the idle traffic. */
export function traceText(
  firstCalls: { title: string; lines: CommandLine[] }[],
  idleLines: CommandLine[],
  measured: Measured[],
  idle: Idle,
  who: (source: string) => string,
): string {
  const traceLine = (line: CommandLine, from: number) => {
    const args = line.args.map((arg) => shortened(arg.replace(/\s+/g, ' '), 90));
    return `+${(line.at - from).toFixed(1).padStart(8)} ms  ${who(line.source).padEnd(6)}  ${args.join(' ')}`;
  };
  const listed = (counts: Map<string, number>, digits: number) =>
    [...counts]
      .filter(([, n]) => n >= 0.5 * 10 ** -digits)
      .sort((a, b) => b[1] - a[1])
      .map(([key, n]) => `${n.toFixed(digits).padStart(8)}  ${key}`);
  const out: string[] = [];
  for (const { title, lines } of firstCalls) {
    out.push(`== ${title}: every Redis command of one call (MONITOR), in order`, '');
    out.push(...lines.map((line) => traceLine(line, lines[0]?.at ?? 0)), '');
  }
  for (const m of measured) {
    out.push(`== ${m.title}: per call, idle subtracted`, '');
    out.push('PostgreSQL statements (pg_stat_statements), by role:', ...listed(m.each.pg, 2), '');
    out.push("Redis commands (commandstats, scripts' contents included):", ...listed(m.each.redis, 2), '');
    out.push("Redis commands sent by pdn's processes (MONITOR):", ...listed(m.seen.sent, 2));
    out.push(`   in scripts: ${fixed(m.seen.inScripts, 2)}; by process: ${byProcess(m.seen.byProcess)}`, '');
  }
  for (const role of ['api', 'worker'] as const) {
    out.push(`== an idle --role ${role} process, per second`, '');
    out.push('PostgreSQL statements:', ...listed(idle[role].pg, 3), '');
    out.push('Redis commands:', ...listed(idle[role].redis, 3), '');
  }
  out.push(`== both processes idle for ${idle.seconds} s: every Redis command (MONITOR)`, '');
  out.push(...idleLines.map((line) => traceLine(line, idleLines[0]?.at ?? 0)), '');
  return `${out.join('\n')}\n`;
}
