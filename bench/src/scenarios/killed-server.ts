// A server killed with SIGKILL in the middle of a job, which runs no handler of its own: how long
// until the last process of its tool tree is gone. Two cases: Ghostscript rewriting a 120-page
// compress (a tool the server started, ended by the kernel's parent-death signal), and OCRmyPDF once
// tesseract runs of its own are at work (its children, which the kernel's signal does not reach: the
// server's watchdog, or their own failing writes to the dead OCRmyPDF, ends them). Each run starts a
// server of its own, waits until the tools are seen working under its data folder, sends SIGKILL, and
// looks at their pids in a tight loop: the figure is the end of the first look that found none running
// (then a look at the whole of /proc found nothing else in their process groups), an upper bound by
// one look's length (given).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, type TestServer } from '@pdn/e2e/harness';
import { processesUnder, type ToolProcess } from '@pdn/e2e/processes';
import { embeddedFontPdf, scannedDocumentPdf } from '@pdn/fixtures';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { formatMs, type Row } from '../report.js';
import { percentile } from '../stats.js';

const SCENARIO = '17. Killed server';

/** A tool tree still running this long after the kill has survived it: the run fails. */
const GIVE_UP_MS = 30_000;

interface Case {
  name: string;
  binary: string;
  env: Record<string, string>;
  path: string;
  body(): Promise<FormData>;
  /** Whether the tools seen are those to kill the server among. */
  ready(tools: ToolProcess[]): boolean;
}

const CASES: Case[] = [
  {
    name: 'mid-Ghostscript (a 120-page compress)',
    binary: 'gs',
    env: { PDN_COMPRESS_ENGINE: 'ghostscript' },
    path: '/api/v1/compress',
    body: async () => {
      const form = new FormData();
      form.append('file', new Blob([await embeddedFontPdf({ pages: 120 })]), 'fonts.pdf');
      return form;
    },
    ready: (tools) => tools.some((tool) => tool.command.includes('-sDEVICE=pdfwrite')),
  },
  {
    name: 'mid-OCRmyPDF (6 pages at 300 dpi, 2 tesseract runs at work)',
    binary: 'ocrmypdf',
    env: { PDN_OCR_PDF_ENGINE: 'ocrmypdf', PDN_JOB_CONCURRENCY: '2' },
    path: '/api/v1/ocr/pdf',
    body: async () => {
      const form = new FormData();
      const scan = await scannedDocumentPdf({ pages: 6, seed: 7, dpi: 300, blocks: 12 });
      form.append('file', new Blob([scan.bytes]), 'scan.pdf');
      return form;
    },
    ready: (tools) => tools.some((tool) => /(^|\/)tesseract /.test(tool.command)),
  },
];

function installed(binary: string): boolean {
  try {
    execFileSync(binary, ['--version'], { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `pid` runs (a zombie has ended: only its reaping is left). Read synchronously: a few small
 * files, where the thread pool's turn for an asynchronous read took up to 250 ms on the loaded machine.
 */
function runs(pid: number): boolean {
  let stat = '';
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

/** Running processes in any of `groups`: a whole look at /proc, for what started after the tools were seen. */
async function inGroups(groups: ReadonlySet<number>): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (stat !== '' && fields[0] !== 'Z' && fields[0] !== 'X' && groups.has(Number(fields[2])))
      found.push(Number(entry));
  }
  return found;
}

interface Measured {
  /** SIGKILL to the last process of the tree gone (ms). */
  lastMs: number;
  /** SIGKILL to the server's own children among the tools gone (ms). */
  childrenMs: number;
  /** The longest look at /proc during the run: the resolution of the figures. */
  lookMs: number;
  processes: number;
}

async function killOnce(which: Case): Promise<Measured> {
  const server: TestServer = await startServer({ env: which.env });
  try {
    const key = await server.createKey({ user: 'killed', plan: 'enterprise' });
    const serverPid = server.pid;
    fetch(server.url(which.path), {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: await which.body(),
    }).catch(() => undefined);
    let tools: ToolProcess[] = [];
    for (let tries = 0; !which.ready(tools); tries += 1) {
      if (tries > 2400) throw new Error(`${which.name}: the tools were never seen at work`);
      await sleep(25);
      tools = await processesUnder(server.dataDir);
    }
    const groups = new Set(tools.map((tool) => tool.group));
    const children = new Set(tools.filter((tool) => tool.parent === serverPid).map((tool) => tool.pid));
    const all = new Set(tools.map((tool) => tool.pid));
    const killedAt = performance.now();
    const exited = server.signal('SIGKILL');
    // Looks at the pids known (a few files, well under a millisecond) until none runs, then once at the
    // whole of /proc for anything else in their groups; anything found is watched in turn.
    const watched = new Set(all);
    let childrenMs: number | undefined;
    let lookMs = 0;
    for (;;) {
      const lookStart = performance.now();
      const left = [...watched].filter(runs);
      const now = performance.now();
      lookMs = Math.max(lookMs, now - lookStart);
      if (childrenMs === undefined && !left.some((pid) => children.has(pid))) childrenMs = now - killedAt;
      if (left.length === 0) {
        const others = await inGroups(groups);
        if (others.length === 0) {
          await exited;
          const under = await processesUnder(server.dataDir);
          if (under.length > 0) throw new Error(`${which.name}: left running: ${JSON.stringify(under)}`);
          return {
            lastMs: now - killedAt,
            childrenMs: childrenMs ?? now - killedAt,
            lookMs,
            processes: tools.length,
          };
        }
        for (const pid of others) watched.add(pid);
      }
      if (now - killedAt > GIVE_UP_MS)
        throw new Error(`${which.name}: ${left.length} tool processes survived the kill`);
      await sleep(1);
    }
  } finally {
    await server.stop();
  }
}

async function killedServer(context: BenchContext): Promise<ScenarioResult> {
  const rows: Row[] = [];
  for (const which of CASES) {
    if (!installed(which.binary)) {
      process.stderr.write(`bench: ${SCENARIO} ${which.name} skipped: ${which.binary} is not installed\n`);
      continue;
    }
    const runs: Measured[] = [];
    for (let run = 0; run < context.profile.runs; run++) runs.push(await killOnce(which));
    const last = runs.map((run) => run.lastMs);
    const children = runs.map((run) => run.childrenMs);
    rows.push({
      scenario: SCENARIO,
      case: `${which.name}: SIGKILL of the server to its last tool process gone, median of ${runs.length}`,
      pdn: formatMs(percentile(last, 50)),
      baseline: '',
      ratio: null,
      target: '',
      met: null,
      note:
        `max ${formatMs(Math.max(...last))}; the server's own children among them gone after ` +
        `${formatMs(percentile(children, 50))} (median); ${Math.max(...runs.map((run) => run.processes))} ` +
        `processes seen at the kill; each figure is within one look at /proc ` +
        `(at most ${formatMs(Math.max(...runs.map((run) => run.lookMs)))})`,
    });
  }
  return { rows };
}

export const killedServerScenario: Scenario = { name: 'killed-server', fullOnly: true, run: killedServer };
