// Compression of real files nobody here wrote, against what a user could run instead: pdn compress end
// to end (upload, work, check, download) against the `gs` CLI at the preset a user would pick for the
// level (low /printer, medium /ebook, high /screen), and against the work of pdn's own answer done
// alone (Ghostscript with the chosen candidate's arguments, replayed from the server's debug log, or
// qpdf's lossless rewrite where that was the answer, and the qpdf pass after Ghostscript where that
// made it): the second ratio is what the ladder and the
// content check cost on top of the work itself. Each file and level interleaves the three, medians
// of three rounds after one warm-up call of pdn's. Wall time and CPU seconds both: the CPU ratio is
// what a busy server pays (pdn's is its server's whole process tree, tools included).
//
// The files: valid files of the fixtures corpus (packages/fixtures/corpus, SOURCES.md) with a spread
// of sizes and producers; the hostile and damaged ones, which pdn refuses in milliseconds, are left
// out. The goal: at most 1.3 x the CLI at the median of each level, at most 2 x on any file. A file
// the CLI cannot open is left out of both, and named: gs then exits 0 having written a blank page in
// milliseconds, which is no time to compare with.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startServer, type TestServer } from '@pdn/e2e/harness';
import { fromPath, Pdn } from '@pdn/sdk';
import { ADMIT_ALL } from '../admit-all.js';
import {
  GHOSTSCRIPT_PRESETS,
  type GhostscriptPreset,
  ghostscript,
  ghostscriptArgs,
  qpdfRewrite,
} from '../baselines.js';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { replayedOn } from '../ghostscript-replay.js';
import { treeCpuSeconds, waitedChildrenCpuSeconds } from '../process-cpu.js';
import { formatMs, type Row, table } from '../report.js';
import { percentile } from '../stats.js';
import { compressTimings, medianTimings, type PhaseTimings, recordsOf } from '../timings.js';

const SCENARIO = '2b. Compression of real files';
const run = promisify(execFile);
const CORPUS = new URL('../../../packages/fixtures/corpus/', import.meta.url);

/** Producers and kinds: office suites, TeX, browsers, scanners, forms, images, CJK and Arabic fonts. */
const REAL_WORLD = [
  'word-365-table.pdf',
  'libreoffice-writer.pdf',
  'google-docs.pdf',
  'chrome-138-print.pdf',
  'firefox-print-ligatures.pdf',
  'macos-pages.pdf',
  'pdflatex-multicolumn.pdf',
  'apple-pstopdf-arabic-cid.pdf',
  'acrobat-acroform.pdf',
  'canon-scan.pdf',
  'quartz-scanned-page.pdf',
  'pdf-tools-ccitt.pdf',
  'tiff2pdf-jbig2-skewed.pdf',
  'explicit-and-stencil-masks.pdf',
  'cmyk-indexed-photo.pdf',
] as const;

type Level = 'low' | 'medium' | 'high';
const PRESET: Record<Level, GhostscriptPreset> = { low: '/printer', medium: '/ebook', high: '/screen' };
const TARGET = { median: 1.3, worst: 2 } as const;

/** One timed run: wall milliseconds and CPU seconds. */
interface Timed {
  ms: number;
  cpu: number;
}

/** What a pdn answer was, read back from the server's log, and its work to run alone. */
interface Answer {
  method: string;
  /**
   * The tools the call started, and how many of them were Ghostscript rewrites: counts, which the
   * load of a shared machine does not blur as it does times.
   */
  runs: { tools: number; ghostscript: number };
  /** The work of the answer done alone; undefined where the answer is the original. */
  alone: (() => Promise<void>) | undefined;
}

/** The server's log records of `requestId`. */
function recordsOfRequest(server: TestServer, requestId: string): Record<string, unknown>[] {
  return recordsOf(server.output).filter((record) => record.request_id === requestId);
}

/**
 * The answer's method, and its work alone: the Ghostscript run that wrote the chosen
 * candidate, its arguments replayed on the bench's copy of the file, or qpdf's rewrite.
 */
function answerOf(server: TestServer, requestId: string, file: string, scratch: string): Answer {
  const records = recordsOfRequest(server, requestId);
  const compressed = records.find((record) => record.msg === 'compressed');
  if (compressed === undefined) throw new Error(`no "compressed" log line for request ${requestId}`);
  const method = String(compressed.method);
  const toolRuns = records.filter((record) => record.msg === 'tool finished');
  const runs = {
    tools: toolRuns.length,
    ghostscript: toolRuns.filter((record) => (record.args as string[]).includes('-sDEVICE=pdfwrite')).length,
  };
  if (method === 'qpdf') return { method, runs, alone: () => qpdfRewrite(file, `${scratch}/alone-qpdf.pdf`) };
  if (!method.startsWith('ghostscript')) return { method, runs, alone: undefined };
  const written = `-sOutputFile=ghostscript-${compressed.preset}-${compressed.interpreter}.pdf`;
  const gsRun = records.find(
    (record) => record.msg === 'tool finished' && Array.isArray(record.args) && record.args.includes(written),
  );
  if (gsRun === undefined) throw new Error(`no Ghostscript run wrote ${written} for request ${requestId}`);
  const args = gsRun.args as string[];
  const replayed = replayedOn(args, file);
  if (replayed === undefined) throw new Error('the Ghostscript run names no input');
  return {
    method,
    runs,
    alone: async () => {
      await run(String(gsRun.tool), replayed, { cwd: scratch });
      // The qpdf pass after it, where that made the answer.
      if (method === 'ghostscript+qpdf')
        await qpdfRewrite(`${scratch}/${written.slice('-sOutputFile='.length)}`, `${scratch}/alone-qpdf.pdf`);
    },
  };
}

/** `task` timed, its CPU seconds read by `cpu` before and after. */
async function timed(task: () => Promise<unknown>, cpu: () => Promise<number>): Promise<Timed> {
  const [cpuBefore, started] = [await cpu(), performance.now()];
  await task();
  const ms = performance.now() - started;
  return { ms, cpu: (await cpu()) - cpuBefore };
}

const median = (values: readonly number[]) => percentile(values, 50);
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

interface FileResult {
  file: string;
  level: Level;
  /**
   * The gs CLI processed no page of the file: it could not open it ("No pages will be processed"),
   * exited 0 and wrote a blank page in milliseconds. No baseline for speed, so the file is left out
   * of the summary's ratios, and named there.
   */
  cliDrewNothing: boolean;
  method: string;
  runs: Answer['runs'];
  pdn: Timed;
  cli: Timed;
  alone: Timed | undefined;
  phases: PhaseTimings;
}

async function measureFile(
  pdn: Pdn,
  server: TestServer,
  name: string,
  level: Level,
  rounds: number,
  scratch: string,
): Promise<FileResult> {
  const file = fileURLToPath(new URL(name, CORPUS));
  const serverCpu = () => treeCpuSeconds(server.pid);
  const callPdn = async () => {
    const result = await pdn.compress({ file: fromPath(file), level });
    await pdn.download(result.download, `${scratch}/pdn.pdf`);
    return result.requestId;
  };
  // The warm-up call also tells which candidate answers, and so what to run alone.
  const answer = answerOf(server, await callPdn(), file, scratch);
  const said = await run('gs', ghostscriptArgs(file, `${scratch}/cli.pdf`, PRESET[level]));
  const cliDrewNothing = /No pages will be processed/.test(`${said.stdout}${said.stderr}`);
  const runs: { pdn: Timed; cli: Timed; alone: Timed | undefined }[] = [];
  const phases: PhaseTimings[] = [];
  for (let round = 0; round < rounds; round += 1) {
    let requestId = '';
    const pdnRun = await timed(async () => {
      requestId = await callPdn();
    }, serverCpu);
    phases.push(compressTimings(server.output, requestId));
    const cli = await timed(
      () => ghostscript(file, `${scratch}/cli.pdf`, PRESET[level]),
      waitedChildrenCpuSeconds,
    );
    const alone = answer.alone && (await timed(answer.alone, waitedChildrenCpuSeconds));
    runs.push({ pdn: pdnRun, cli, alone });
  }
  const mid = (pick: (run: (typeof runs)[number]) => Timed): Timed => ({
    ms: median(runs.map((r) => pick(r).ms)),
    cpu: median(runs.map((r) => pick(r).cpu)),
  });
  return {
    file: name,
    level,
    cliDrewNothing,
    method: answer.method,
    runs: answer.runs,
    pdn: mid((r) => r.pdn),
    cli: mid((r) => r.cli),
    alone: answer.alone && mid((r) => r.alone as Timed),
    phases: medianTimings(phases),
  };
}

function summaryRows(level: Level, all: readonly FileResult[]): Row[] {
  const results = all.filter((r) => !r.cliDrewNothing);
  const leftOut = all.filter((r) => r.cliDrewNothing).map((r) => r.file);
  const without =
    leftOut.length === 0 ? '' : `; left out: ${leftOut.join(', ')}, of which the gs CLI processed no page`;
  const ratios = (of: (r: FileResult) => number | undefined) =>
    results.flatMap((r) => {
      const value = of(r);
      return value === undefined ? [] : [value];
    });
  const wall = ratios((r) => r.pdn.ms / r.cli.ms);
  const cpu = ratios((r) => (r.cli.cpu > 0 ? r.pdn.cpu / r.cli.cpu : undefined));
  const overAlone = ratios((r) => r.alone && r.pdn.ms / r.alone.ms);
  const worstFile = results.reduce((a, b) => (b.pdn.ms / b.cli.ms > a.pdn.ms / a.cli.ms ? b : a));
  const preset = PRESET[level];
  const rows: Row[] = [
    {
      scenario: SCENARIO,
      case: `${level}: pdn end to end / gs ${preset} CLI, median of ${results.length} files (wall)`,
      pdn: wall.length === 0 ? '' : `${median(wall).toFixed(2)}`,
      baseline: '',
      ratio: median(wall),
      target: `<= ${TARGET.median.toFixed(2)}`,
      met: median(wall) <= TARGET.median,
      note: `CPU seconds: median ${median(cpu).toFixed(2)}, worst ${Math.max(...cpu).toFixed(2)}; Ghostscript rewrites ${sum(results.map((r) => r.runs.ghostscript))}, tool runs ${sum(results.map((r) => r.runs.tools))} over the ${results.length} answers${without}`,
    },
    {
      scenario: SCENARIO,
      case: `${level}: pdn end to end / gs ${preset} CLI, worst file (wall)`,
      pdn: formatMs(worstFile.pdn.ms),
      baseline: formatMs(worstFile.cli.ms),
      ratio: Math.max(...wall),
      target: `<= ${TARGET.worst.toFixed(2)}`,
      met: Math.max(...wall) <= TARGET.worst,
      note: `${worstFile.file} (${worstFile.method})${without}`,
    },
  ];
  if (overAlone.length > 0)
    rows.push({
      scenario: SCENARIO,
      case: `${level}: pdn end to end / the answer's own Ghostscript or qpdf run alone, median (wall)`,
      pdn: `${median(overAlone).toFixed(2)}`,
      baseline: '',
      ratio: median(overAlone),
      target: '',
      met: null,
      note: `what the ladder, the check and HTTP add to the work itself; worst ${Math.max(...overAlone).toFixed(2)}`,
    });
  return rows;
}

function detailRow(r: FileResult): string[] {
  const { inspect, ghostscript: gsMs, qpdf, check } = r.phases;
  const other = r.pdn.ms - inspect - gsMs - qpdf - check;
  const share = (ms: number) => `${Math.round((Math.max(0, ms) / r.pdn.ms) * 100)}%`;
  return [
    r.file,
    r.level,
    r.method,
    `${formatMs(r.pdn.ms)} / ${r.pdn.cpu.toFixed(2)} s`,
    `${formatMs(r.cli.ms)} / ${r.cli.cpu.toFixed(2)} s`,
    r.alone ? `${formatMs(r.alone.ms)} / ${r.alone.cpu.toFixed(2)} s` : '',
    `${(r.pdn.ms / r.cli.ms).toFixed(2)}${r.cliDrewNothing ? ' (the CLI processed no page)' : ''}`,
    [inspect, gsMs, qpdf, check, other].map(share).join(' / '),
    `${r.runs.tools} (${r.runs.ghostscript})`,
  ];
}

async function compressionRealWorld(context: BenchContext): Promise<ScenarioResult> {
  const quick = context.profile.name === 'quick';
  const files = quick ? REAL_WORLD.slice(0, 2) : REAL_WORLD;
  const levels: Level[] = quick ? ['medium'] : ['low', 'medium', 'high'];
  const rounds = quick ? 1 : 3;
  // A server of its own at debug level: each answer's phases and tool runs come back in its log.
  const server = await startServer({ env: { ...ADMIT_ALL, PDN_LOG_LEVEL: 'debug' } });
  try {
    const apiKey = await server.createKey({ user: 'bench-real-world', plan: 'enterprise' });
    const pdn = new Pdn({ baseUrl: server.baseUrl, apiKey, maxRetries: 0 });
    const rows: Row[] = [];
    const details: string[][] = [];
    for (const level of levels) {
      const results: FileResult[] = [];
      for (const file of files)
        results.push(await measureFile(pdn, server, file, level, rounds, context.workDir));
      rows.push(...summaryRows(level, results));
      details.push(...results.map(detailRow));
    }
    const header = [
      'File',
      'Level',
      'Answer',
      'pdn (wall / CPU)',
      'gs CLI at the preset',
      'the answer alone',
      'pdn / CLI',
      'inspection / Ghostscript / qpdf / check / HTTP and other',
      'tool runs (Ghostscript rewrites)',
    ];
    return {
      rows,
      details: [
        {
          title: `Compression of real files (medians of ${rounds} interleaved rounds; presets ${GHOSTSCRIPT_PRESETS.join(', ')})`,
          markdown: table(header, details),
        },
      ],
    };
  } finally {
    await server.stop();
  }
}

export const compressionRealWorldScenario: Scenario = {
  name: 'compression real-world',
  run: compressionRealWorld,
};
