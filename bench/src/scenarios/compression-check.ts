// What the compress content check refuses, and what that costs (the check must see more at less cost):
// every file of the fixtures corpus at each level through pdn, its answer and the check's refusals read
// back from the server's debug log. Per level: how often the answer is the input itself (`original`),
// and how many of those were false refusals by one of two measures a user would agree with: qpdf's
// lossless rewrite (the same pages, object for object) was smaller than the input, or a Ghostscript
// rewrite the check refused looks the same as the input (each sampled page identical, or at least
// EQUAL_DB at 100 dpi in colour: a stricter eye than the check's 40 dpi greyscale). Beside them, the
// check's own time per answer (`check_ms`, medians), and per file the lowest score of the answer's
// tiles (the margin above the tile floor).
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startServer, type TestServer } from '@pdn/e2e/harness';
import { fromPath, Pdn } from '@pdn/sdk';
import { ADMIT_ALL } from '../admit-all.js';
import { qpdfRewrite } from '../baselines.js';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { replayedOn } from '../ghostscript-replay.js';
import { psnr, renderFirstPage } from '../psnr.js';
import { type Row, table } from '../report.js';
import { percentile } from '../stats.js';
import { recordsOf } from '../timings.js';

const SCENARIO = '2c. The compress content check: refusals and cost';
const run = promisify(execFile);
const CORPUS = fileURLToPath(new URL('../../../packages/fixtures/corpus/', import.meta.url));
type Level = 'low' | 'medium' | 'high';
/** A refused rewrite at least this close to the input at 100 dpi looks the same to a reader. */
const EQUAL_DB = 40;

interface Answer {
  file: string;
  level: Level;
  method: string;
  inputBytes: number;
  outputBytes: number;
  checkMs: number | undefined;
  worstPsnr: string | undefined;
  worstTile: string | undefined;
  /** Each refused candidate's method and reason. */
  refusals: { method: string; reason: string }[];
  /** For `original` answers: why it was a false refusal, if it was. */
  falseRefusal: string | undefined;
}

/** Every page of both files drawn by pdftoppm at 100 dpi, compared; the lowest PSNR (Infinity: identical). */
async function lowestPagePsnr(input: string, candidate: string, pages: number): Promise<number> {
  let lowest = Number.POSITIVE_INFINITY;
  for (let page = 1; page <= Math.min(pages, 5); page += 1) {
    const [a, b] = [await renderPage(input, page), await renderPage(candidate, page)];
    lowest = Math.min(lowest, a.width === b.width && a.height === b.height ? psnr(a, b) : 0);
  }
  return lowest;
}

async function renderPage(path: string, page: number) {
  if (page === 1) return renderFirstPage(path);
  // renderFirstPage on a one-page copy of `page`.
  const dir = await mkdtemp(join(path, '..', 'page-'));
  try {
    const single = join(dir, 'page.pdf');
    await run('qpdf', ['--empty', '--pages', path, String(page), '--', single]).catch((error) => {
      if (error.code !== 3) throw error;
    });
    return await renderFirstPage(single);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Ghostscript's rewrites of this request, replayed on the bench's copy of the file from the debug log. */
async function replayedRewrites(
  records: Record<string, unknown>[],
  file: string,
  scratch: string,
): Promise<string[]> {
  const outputs: string[] = [];
  for (const record of records) {
    const args =
      record.msg === 'tool finished' && Array.isArray(record.args) ? (record.args as string[]) : [];
    const output = args.find((arg) => arg.startsWith('-sOutputFile=') && arg.includes('ghostscript-'));
    const replayed = replayedOn(args, file);
    if (output === undefined || replayed === undefined || !args.includes('-sDEVICE=pdfwrite')) continue;
    await run(String(record.tool), replayed, { cwd: scratch }).catch(() => {});
    outputs.push(join(scratch, output.slice('-sOutputFile='.length)));
  }
  return outputs;
}

async function falseRefusalOf(
  file: string,
  records: Record<string, unknown>[],
  inputBytes: number,
  scratch: string,
): Promise<string | undefined> {
  const tidied = join(scratch, 'qpdf.pdf');
  const qpdfBytes = await qpdfRewrite(file, tidied)
    .then(() => stat(tidied))
    .then((s) => s.size)
    .catch(() => undefined);
  if (qpdfBytes !== undefined && qpdfBytes < inputBytes)
    return `qpdf's lossless rewrite is ${qpdfBytes} bytes of ${inputBytes}`;
  const pages = Number((await run('qpdf', ['--show-npages', file]).catch(() => ({ stdout: '0' }))).stdout);
  for (const rewrite of await replayedRewrites(records, file, scratch)) {
    const size = await stat(rewrite)
      .then((s) => s.size)
      .catch(() => undefined);
    if (size === undefined || size >= inputBytes) continue;
    const lowest = await lowestPagePsnr(file, rewrite, pages).catch(() => 0);
    if (lowest >= EQUAL_DB)
      return `a refused rewrite of ${size} bytes scores ${lowest.toFixed(1)} dB at 100 dpi`;
  }
  return undefined;
}

async function answer(
  pdn: Pdn,
  server: TestServer,
  name: string,
  level: Level,
  scratch: string,
): Promise<Answer> {
  const file = join(CORPUS, name);
  const inputBytes = (await stat(file)).size;
  const result = await pdn
    .compress({ file: fromPath(file), level })
    .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
  if (result instanceof Error)
    return {
      file: name,
      level,
      method: `refused: ${result.message.slice(0, 60)}`,
      inputBytes,
      outputBytes: inputBytes,
      checkMs: undefined,
      worstPsnr: undefined,
      worstTile: undefined,
      refusals: [],
      falseRefusal: undefined,
    };
  const records = recordsOf(server.output).filter((record) => record.request_id === result.requestId);
  const compressed = records.find((record) => record.msg === 'compressed') ?? {};
  const refusals = records
    .filter((record) => record.msg === 'compress candidate rejected')
    .map((record) => ({ method: String(record.method), reason: String(record.reason) }));
  const method = String(compressed.method ?? result.method);
  return {
    file: name,
    level,
    method,
    inputBytes,
    outputBytes: Number(compressed.output_bytes ?? inputBytes),
    checkMs: compressed.check_ms === undefined ? undefined : Number(compressed.check_ms),
    worstPsnr: compressed.worst_psnr_db === undefined ? undefined : String(compressed.worst_psnr_db),
    worstTile: compressed.worst_tile === undefined ? undefined : String(compressed.worst_tile),
    refusals,
    falseRefusal:
      method === 'original' ? await falseRefusalOf(file, records, inputBytes, scratch) : undefined,
  };
}

function levelRows(level: Level, answers: readonly Answer[]): Row[] {
  const originals = answers.filter((a) => a.method === 'original');
  const falseOnes = originals.filter((a) => a.falseRefusal !== undefined);
  const checkMs = answers.flatMap((a) => (a.checkMs === undefined ? [] : [a.checkMs]));
  return [
    {
      scenario: SCENARIO,
      case: `${level}: answers that are the input itself (original), of ${answers.length} files`,
      pdn: String(originals.length),
      baseline: '',
      ratio: null,
      target: '',
      met: null,
      note: originals.map((a) => a.file).join(', '),
    },
    {
      scenario: SCENARIO,
      case: `${level}: false refusals (original while qpdf's lossless rewrite was smaller or a rewrite looked the same)`,
      pdn: String(falseOnes.length),
      baseline: '',
      ratio: null,
      target: '0',
      met: falseOnes.length === 0,
      note: falseOnes.map((a) => `${a.file}: ${a.falseRefusal}`).join('; '),
    },
    {
      scenario: SCENARIO,
      case: `${level}: the check's time per answer (check_ms), median / 90th percentile`,
      pdn: checkMs.length === 0 ? '' : `${percentile(checkMs, 50)} / ${percentile(checkMs, 90)} ms`,
      baseline: '',
      ratio: null,
      target: '',
      met: null,
      note: `${checkMs.length} answers that ran the check`,
    },
  ];
}

async function compressionCheck(context: BenchContext): Promise<ScenarioResult> {
  const quick = context.profile.name === 'quick';
  const names = (await readdir(CORPUS)).filter((name) => name.endsWith('.pdf')).sort();
  const files = quick ? names.slice(0, 4) : names;
  const levels: Level[] = quick ? ['medium'] : ['low', 'medium', 'high'];
  const server = await startServer({ env: { ...ADMIT_ALL, PDN_LOG_LEVEL: 'debug' } });
  try {
    const apiKey = await server.createKey({ user: 'bench-check', plan: 'enterprise' });
    const pdn = new Pdn({ baseUrl: server.baseUrl, apiKey, maxRetries: 0 });
    const rows: Row[] = [];
    const details: string[][] = [];
    for (const level of levels) {
      const answers: Answer[] = [];
      for (const name of files) {
        const scratch = await mkdtemp(join(context.workDir, 'check-'));
        answers.push(await answer(pdn, server, name, level, scratch));
        await rm(scratch, { recursive: true, force: true });
      }
      rows.push(...levelRows(level, answers));
      details.push(
        ...answers.map((a) => [
          a.file,
          a.level,
          a.method,
          `${((a.outputBytes / a.inputBytes) * 100).toFixed(0)}%`,
          a.worstPsnr ?? '',
          a.worstTile ?? '',
          a.checkMs === undefined ? '' : String(a.checkMs),
          a.refusals.map((r) => `${r.method}: ${r.reason.slice(0, 90)}`).join('<br>'),
          a.falseRefusal ?? '',
        ]),
      );
    }
    const header = [
      'File',
      'Level',
      'Answer',
      'Size',
      'Worst page dB',
      'Worst tile',
      'check_ms',
      'Refused',
      'False refusal',
    ];
    return {
      rows,
      details: [
        {
          title: 'The content check on the fixtures corpus, one answer per file and level',
          markdown: table(header, details),
        },
      ],
    };
  } finally {
    await server.stop();
  }
}

export const compressionCheckScenario: Scenario = { name: 'compression check', run: compressionCheck };
