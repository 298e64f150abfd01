// The bench's scenarios 1 and 2: compression size, with PSNR at 100 and
// 150 dpi beside every output, and compression time, split into inspection, Ghostscript, qpdf, the
// content check and the rest (HTTP, upload, download), pdn against Ghostscript, qpdf and pdf-lib run
// alone on the same files.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer } from '@pdn/e2e/harness';
import type { CompressionLevel } from '@pdn/sdk';
import { fromPath, Pdn } from '@pdn/sdk';
import { GHOSTSCRIPT_PRESETS, ghostscript, pdfLibResave, qpdfRewrite } from '../baselines.js';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import type { CorpusFile } from '../corpus.js';
import { type Pixmap, psnr, renderFirstPage } from '../psnr.js';
import { formatBytes, formatMs, type Row, table } from '../report.js';
import { summarize, timeRuns } from '../stats.js';
import { compressTimings, medianTimings, type PhaseTimings } from '../timings.js';

const LEVELS: readonly CompressionLevel[] = ['low', 'medium', 'high'];
/** Quality is measured at 150 dpi as well as 100 dpi. */
const QUALITY_DPIS = [100, 150] as const;
/** The target: `high` saves at least 80% on every photo-heavy file. */
const PHOTO_HEAVY_HIGH_RATIO = 0.2;

interface Output {
  label: string;
  size: number;
  /** dB of page 1 per resolution; Infinity when identical; NaN when it could not be compared. */
  psnr: Record<(typeof QUALITY_DPIS)[number], number>;
  method?: string;
}

type References = Record<(typeof QUALITY_DPIS)[number], Pixmap>;

async function references(path: string): Promise<References> {
  return { 100: await renderFirstPage(path, 100), 150: await renderFirstPage(path, 150) };
}

async function measureOutput(label: string, reference: References, path: string): Promise<Output> {
  const size = (await stat(path)).size;
  const quality = { 100: Number.NaN, 150: Number.NaN };
  for (const dpi of QUALITY_DPIS) {
    try {
      quality[dpi] = psnr(reference[dpi], await renderFirstPage(path, dpi));
    } catch {
      // A page-size change or an unrenderable output: reported as "n/a" rather than guessed.
    }
  }
  return { label, size, psnr: quality };
}

function formatDb(value: number): string {
  if (Number.isNaN(value)) return 'n/a';
  return value === Number.POSITIVE_INFINITY ? 'lossless' : `${value.toFixed(1)}`;
}

/** "36.4 / 38.0 dB" (100 / 150 dpi), or "lossless". */
function formatPsnr(output: Output): string {
  const [at100, at150] = [formatDb(output.psnr[100]), formatDb(output.psnr[150])];
  if (at100 === 'lossless' && at150 === 'lossless') return 'lossless';
  return `${at100} / ${at150} dB`;
}

function describe(output: Output): string {
  return `${formatBytes(output.size)} (${output.method ? `${output.method}, ` : ''}${formatPsnr(output)})`;
}

async function baselineOutputs(file: CorpusFile, context: BenchContext, reference: References) {
  const outputs: Output[] = [];
  for (const preset of GHOSTSCRIPT_PRESETS) {
    const path = join(context.workDir, `${file.name}.gs${preset.replace('/', '-')}.pdf`);
    await ghostscript(file.path, path, preset);
    outputs.push(await measureOutput(`gs ${preset}`, reference, path));
  }
  const qpdfPath = join(context.workDir, `${file.name}.qpdf.pdf`);
  await qpdfRewrite(file.path, qpdfPath);
  outputs.push(await measureOutput('qpdf', reference, qpdfPath));
  const pdfLibPath = join(context.workDir, `${file.name}.pdf-lib.pdf`);
  await pdfLibResave(file.path, pdfLibPath);
  outputs.push(await measureOutput('pdf-lib', reference, pdfLibPath));
  return outputs;
}

async function pdnOutput(
  file: CorpusFile,
  level: CompressionLevel,
  context: BenchContext,
  reference: References,
) {
  const result = await context.pdn.compress({ file: fromPath(file.path), level });
  const path = await context.pdn.download(
    result.download,
    join(context.workDir, `${file.name}.pdn-${level}.pdf`),
  );
  return { ...(await measureOutput(`pdn ${level}`, reference, path)), method: result.method };
}

/** At least as good at both resolutions (NaN, not comparable, never is). */
function atLeastAsGood(candidate: Output, than: Output): boolean {
  return QUALITY_DPIS.every((dpi) => candidate.psnr[dpi] >= than.psnr[dpi]);
}

/** The target at `high`: no bigger than the smallest Ghostscript preset output at least as good. */
function highTarget(high: Output, baselines: readonly Output[]): Output | undefined {
  return baselines
    .filter((baseline) => baseline.label.startsWith('gs ') && atLeastAsGood(baseline, high))
    .sort((a, b) => a.size - b.size)[0];
}

async function compressionSize(context: BenchContext): Promise<ScenarioResult> {
  const rows: Row[] = [];
  const detailRows: string[][] = [];
  const scenario = '1. Compression size';
  for (const file of context.corpus.compress) {
    const inputSize = (await stat(file.path)).size;
    const reference = await references(file.path);
    const baselines = await baselineOutputs(file, context, reference);
    const pdn: Record<string, Output> = {};
    for (const level of LEVELS) pdn[level] = await pdnOutput(file, level, context, reference);
    const [low, medium, high] = [pdn.low, pdn.medium, pdn.high] as [Output, Output, Output];

    const largest = Math.max(low.size, medium.size, high.size);
    rows.push({
      scenario,
      case: `${file.name}: largest pdn output / input`,
      pdn: formatBytes(largest),
      baseline: `input ${formatBytes(inputSize)}`,
      ratio: largest / inputSize,
      target: '<= 1.00',
      met: largest <= inputSize,
      note: '',
    });
    const ebook = baselines.find((output) => output.label === 'gs /ebook') as Output;
    rows.push({
      scenario,
      case: `${file.name}: medium / gs /ebook`,
      pdn: describe(medium),
      baseline: describe(ebook),
      ratio: medium.size / ebook.size,
      target: '<= 1.00',
      met: medium.size <= ebook.size,
      note: '',
    });
    const rival = highTarget(high, baselines);
    rows.push({
      scenario,
      case: `${file.name}: high / smallest gs preset with PSNR >= pdn's at 100 and 150 dpi`,
      pdn: describe(high),
      baseline: rival ? `${rival.label} ${describe(rival)}` : 'none as good',
      ratio: rival ? high.size / rival.size : null,
      target: '<= 1.00',
      met: rival ? high.size <= rival.size : true,
      note: rival ? '' : 'no Ghostscript preset reaches pdn high quality, so none is a fair size comparison',
    });
    if (file.photoHeavy) {
      const ratio = high.size / inputSize;
      rows.push({
        scenario,
        case: `${file.name} (photo-heavy): high / input`,
        pdn: describe(high),
        baseline: `input ${formatBytes(inputSize)}`,
        ratio,
        target: `<= ${PHOTO_HEAVY_HIGH_RATIO.toFixed(2)}`,
        met: ratio <= PHOTO_HEAVY_HIGH_RATIO,
        note: `high saves at least ${100 - PHOTO_HEAVY_HIGH_RATIO * 100}% on photo-heavy files`,
      });
    }
    detailRows.push([
      file.name,
      formatBytes(inputSize),
      ...[...baselines, low, medium, high].map(
        (output) =>
          `${formatBytes(output.size)} / ${formatPsnr(output)}${output.method ? ` (${output.method})` : ''}`,
      ),
    ]);
  }
  const header = [
    'File',
    'Input',
    ...GHOSTSCRIPT_PRESETS.map((p) => `gs ${p}`),
    'qpdf',
    'pdf-lib',
    'pdn low',
    'pdn medium',
    'pdn high',
  ];
  return {
    rows,
    details: [
      {
        title: 'Compression outputs: size / PSNR of page 1 at 100 / 150 dpi (pdftoppm, against the input)',
        markdown: table(header, detailRows),
      },
    ],
  };
}

async function compressionTime(context: BenchContext): Promise<ScenarioResult> {
  // A server of its own that logs at info: each answer's phase timings come back in its log line
  // (apps/server/src/engines/compress/phase-timer.ts), matched by request id.
  const server = await startServer({ env: { PDN_LOG_LEVEL: 'info' } });
  try {
    const apiKey = await server.createKey({ user: 'bench-time', plan: 'enterprise' });
    const pdn = new Pdn({ baseUrl: server.baseUrl, apiKey, maxRetries: 0 });
    const rows: Row[] = [];
    const splitRows: string[][] = [];
    const timed = context.corpus.compress.filter((file) => file.kind !== 'scan' && file.kind !== 'scan-png');
    for (const file of timed) {
      const gsOutput = join(context.workDir, `${file.name}.time-gs.pdf`);
      const pdnOutputPath = join(context.workDir, `${file.name}.time-pdn.pdf`);
      const gsTimes = await timeRuns(context.profile.runs, () => ghostscript(file.path, gsOutput, '/ebook'));
      const phases: PhaseTimings[] = [];
      const pdnTimes = await timeRuns(context.profile.runs, async () => {
        const result = await pdn.compress({ file: fromPath(file.path), level: 'medium' });
        await pdn.download(result.download, pdnOutputPath);
        phases.push(compressTimings(server.output, result.requestId));
      });
      const gs = summarize(gsTimes);
      const total = summarize(pdnTimes);
      const ratio = total.median / gs.median;
      // The warm-up run's timings are not among the measured ones.
      const measured = phases.slice(-context.profile.runs);
      const { inspect, ghostscript: ghostscriptMs, qpdf, check, reference } = medianTimings(measured);
      const rest = total.median - inspect - ghostscriptMs - qpdf - check;
      rows.push({
        scenario: '2. Compression time',
        case: `${file.name}: pdn medium end to end / gs /ebook CLI`,
        pdn: `${formatMs(total.median)} ±${(total.spread * 100).toFixed(0)}%`,
        baseline: `${formatMs(gs.median)} ±${(gs.spread * 100).toFixed(0)}%`,
        ratio,
        target: '<= 1.30',
        met: ratio <= 1.3,
        note:
          ratio <= 1.3
            ? 'pdn includes upload, the qpdf pass, the content check, signing and download'
            : `missed: the content check takes ${formatMs(check)} of it, inspection and qpdf ` +
              `${formatMs(inspect + qpdf)}; see the split below`,
      });
      rows.push({
        scenario: '2. Compression time',
        case: `${file.name}: content check / pdn medium end to end`,
        pdn: formatMs(check),
        baseline: formatMs(total.median),
        ratio: check / total.median,
        target: '',
        met: null,
        note: `the check's wait on the answer's path; the input's snapshot (${formatMs(reference)}) runs beside Ghostscript`,
      });
      splitRows.push([
        file.name,
        formatMs(total.median),
        formatMs(inspect),
        formatMs(ghostscriptMs),
        formatMs(qpdf),
        `${formatMs(check)} (${((check / total.median) * 100).toFixed(0)}%)`,
        formatMs(reference),
        formatMs(rest),
      ]);
    }
    const header = [
      'File',
      'End to end',
      'Inspection',
      'Ghostscript',
      'qpdf',
      'Content check',
      'Input snapshot (beside Ghostscript)',
      'HTTP, upload, download, other',
    ];
    return {
      rows,
      details: [
        {
          title: `Compression time split, pdn medium (medians of ${context.profile.runs} runs; phases from the server's log)`,
          markdown: table(header, splitRows),
        },
      ],
    };
  } finally {
    await server.stop();
  }
}

export const compressionScenarios: Scenario[] = [
  { name: 'compression size', run: compressionSize },
  { name: 'compression time', run: compressionTime },
];
