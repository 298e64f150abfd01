// Images to PDF against Debian's img2pdf run alone on the same files: photos (camera JPEGs, embedded as
// they are by both), scans (the OCR masters as PNG, whose data both keep) and the other formats both
// take (lossless and lossy WebP, a 16-colour RLE BMP and a 1-bit BMP, an LZW TIFF of two pages and a
// CCITT G4 TIFF, written by ImageMagick and libvips). pdn end to end (upload, the conversion, download)
// timed in alternation with the CLI, as the load of a shared machine drifts; output sizes side by side.
import { execFileSync } from 'node:child_process';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cameraPdf, IMAGE_ASSETS, TWO_PAGE_TIFF } from '@pdn/fixtures';
import { fromPath, type Pdn } from '@pdn/sdk';
import { PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import { img2pdf } from '../baselines.js';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { formatBytes, formatMs, type Row, skippedRow } from '../report.js';
import { roundsFor } from '../sample-rounds.js';
import { summarize, timeAlternating } from '../stats.js';

const SCENARIO = '6. Images to PDF';
const TIME_TARGET = 1.3;
const SIZE_TARGET = 1.01;

interface ImageSet {
  name: string;
  paths: string[];
}

function installed(): boolean {
  try {
    execFileSync('img2pdf', ['--version'], { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

/** The camera JPEGs of the corpus's camera PDF, as the files a phone writes. */
async function photos(context: BenchContext): Promise<string[]> {
  const doc = await PDFDocument.load(await cameraPdf(context.profile.camera));
  const paths: string[] = [];
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream)) continue;
    if (String(object.dict.get(PDFName.of('Filter'))) !== '/DCTDecode') continue;
    const path = join(context.workDir, `photo-${paths.length + 1}.jpg`);
    await writeFile(path, object.contents);
    paths.push(path);
  }
  return paths;
}

async function imageSets(context: BenchContext): Promise<ImageSet[]> {
  const text = (name: string) => join(IMAGE_ASSETS, 'text', name);
  const others = [
    'eng-lossless.webp',
    'eng-lossy.webp',
    'eng-rle8.bmp',
    'eng-1bit.bmp',
    TWO_PAGE_TIFF,
    'eng-g4.tif',
  ];
  return [
    { name: `${context.profile.camera.pages} camera JPEGs`, paths: await photos(context) },
    {
      name: `${context.corpus.ocr.length + 1} scanned PNGs`,
      paths: [...context.corpus.ocr.map((image) => image.path), context.corpus.ocrPage.path],
    },
    { name: 'WebP, BMP and TIFF (6 files, 7 pages)', paths: others.map(text) },
  ];
}

async function viaPdn(pdn: Pdn, paths: readonly string[], output: string): Promise<void> {
  const result = await pdn.imagesToPdf({ images: paths.map((path) => fromPath(path)) });
  await pdn.download(result.download, output);
}

async function measure(context: BenchContext, set: ImageSet, index: number): Promise<Row[]> {
  const pdnOut = join(context.workDir, `images-${index}.pdn.pdf`);
  const cliOut = join(context.workDir, `images-${index}.img2pdf.pdf`);
  const baseline = () => img2pdf(set.paths, cliOut);
  const times = await timeAlternating(
    await roundsFor(context.profile, baseline),
    () => viaPdn(context.pdn, set.paths, pdnOut),
    baseline,
  );
  const pdn = summarize(times.task);
  const cli = summarize(times.baseline);
  const ratio = pdn.median / cli.median;
  const pdnSize = (await stat(pdnOut)).size;
  const cliSize = (await stat(cliOut)).size;
  const sizeRatio = pdnSize / cliSize;
  return [
    {
      scenario: SCENARIO,
      case: `${set.name}, pdn / img2pdf CLI: time`,
      pdn: `${formatMs(pdn.median)} ±${(pdn.spread * 100).toFixed(0)}%`,
      baseline: `${formatMs(cli.median)} ±${(cli.spread * 100).toFixed(0)}%`,
      ratio,
      target: `<= ${TIME_TARGET.toFixed(2)}`,
      met: ratio <= TIME_TARGET,
      note: 'pdn: upload, conversion and download, timed in alternation with the CLI',
    },
    {
      scenario: SCENARIO,
      case: `${set.name}, pdn / img2pdf CLI: output size`,
      pdn: formatBytes(pdnSize),
      baseline: formatBytes(cliSize),
      ratio: sizeRatio,
      target: `<= ${SIZE_TARGET.toFixed(2)}`,
      met: sizeRatio <= SIZE_TARGET,
      note: `${pdnSize.toLocaleString('en-US')} B / ${cliSize.toLocaleString('en-US')} B`,
    },
  ];
}

async function imagesToPdf(context: BenchContext): Promise<ScenarioResult> {
  if (!installed()) return { rows: [skippedRow(SCENARIO, 'pdn / img2pdf CLI', 'img2pdf is not installed')] };
  const rows: Row[] = [];
  for (const [index, set] of (await imageSets(context)).entries())
    rows.push(...(await measure(context, set, index)));
  return { rows };
}

export const imagesToPdfScenario: Scenario = { name: 'images-to-pdf', run: imagesToPdf };
