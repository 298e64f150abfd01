// The tools pdn wraps, run alone on the same files: every ratio in the report is pdn against one of
// these, measured in the same run.
import { execFile, execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import { sampleTreePeak } from './process-memory.js';

const run = promisify(execFile);

export const GHOSTSCRIPT_PRESETS = ['/screen', '/ebook', '/printer'] as const;
export type GhostscriptPreset = (typeof GHOSTSCRIPT_PRESETS)[number];

/** The gs CLI's command line as a user writes it for `preset`. */
export function ghostscriptArgs(input: string, output: string, preset: GhostscriptPreset): string[] {
  return [
    '-dSAFER',
    '-dBATCH',
    '-dNOPAUSE',
    '-dQUIET',
    '-sDEVICE=pdfwrite',
    `-dPDFSETTINGS=${preset}`,
    `-sOutputFile=${output}`,
    input,
  ];
}

export async function ghostscript(input: string, output: string, preset: GhostscriptPreset): Promise<void> {
  await run('gs', ghostscriptArgs(input, output, preset));
}

/** qpdf's lossless rewrite, as pdn's own pass runs it: object streams, flate level 9. */
export async function qpdfRewrite(input: string, output: string): Promise<void> {
  await run('qpdf', ['--object-streams=generate', '--compression-level=9', input, output]).catch((error) => {
    // Exit code 3 means "succeeded with warnings".
    if (error.code !== 3) throw error;
  });
}

export async function pdfLibResave(input: string, output: string): Promise<void> {
  const document = await PDFDocument.load(await readFile(input));
  await writeFile(output, await document.save({ useObjectStreams: true }));
}

export async function qpdfMerge(inputs: readonly string[], output: string): Promise<void> {
  await run('qpdf', ['--empty', '--pages', ...inputs, '--', output]);
}

/** Debian's img2pdf: the images, a page each, as one PDF (its defaults: each page the image's size). */
export async function img2pdf(inputs: readonly string[], output: string): Promise<void> {
  await run('img2pdf', [...inputs, '-o', output]);
}

/**
 * The command a tool is run through to run it as the server runs its tools (run-tool.ts): at niceness
 * 10, under PDN_OCR_MEMORY_MB's default memory limit where util-linux's prlimit is installed.
 */
export function asPdnRunsTools(): string[] {
  try {
    execFileSync('prlimit', ['--version'], { stdio: 'ignore', timeout: 30_000 });
    return ['nice', '-n', '10', 'prlimit', `--data=${2 ** 30}`, `--as=${5 * 2 ** 30}`, '--'];
  } catch {
    return ['nice', '-n', '10'];
  }
}

/**
 * poppler's pdftoppm drawing pages 1 to `pages` of `input` into `outDir` as pdn draws them (JPEG at
 * pdn's quality); run through `wrapper` (asPdnRunsTools) when given.
 */
export async function pdftoppm(
  input: string,
  dpi: number,
  format: 'png' | 'jpeg',
  outDir: string,
  pages: number,
  wrapper: readonly string[] = [],
): Promise<void> {
  const encoding = format === 'png' ? ['-png'] : ['-jpeg', '-jpegopt', 'quality=85'];
  const range = ['-f', '1', '-l', String(pages)];
  const args = [...range, '-cropbox', ...encoding, '-r', String(dpi), input, join(outDir, 'page')];
  const [command = 'pdftoppm', ...rest] = [...wrapper, 'pdftoppm', ...args];
  await run(command, rest);
}

/** As pdn splits: each part from `--empty` (with the input as base, qpdf 11 is quadratic in its pages). */
export async function qpdfSplit(input: string, ranges: readonly string[], outDir: string): Promise<void> {
  for (const [index, range] of ranges.entries()) {
    await run('qpdf', ['--empty', '--pages', input, range, '--', join(outDir, `part-${index + 1}.pdf`)]);
  }
}

/** Native tesseract with one thread (`OMP_THREAD_LIMIT=1`), as the server runs it. */
export async function tesseractCli(image: string, language: string, tessdataDir: string): Promise<string> {
  const { stdout } = await run(
    'tesseract',
    [image, 'stdout', '-l', language, '--tessdata-dir', tessdataDir],
    {
      env: { ...process.env, OMP_THREAD_LIMIT: '1' },
    },
  );
  return stdout;
}

/**
 * The reference for OCR of documents: the `ocrmypdf` CLI with the options pdn's OCRmyPDF
 * engine passes (engines/ocr-pdf/ocrmypdf-args.ts), named in the report.
 */
export const OCRMYPDF_OPTIONS = [
  '--language',
  'eng',
  '--skip-text',
  '--output-type',
  'pdf',
  '--optimize',
  '1',
  '--pdf-renderer',
  'sandwich',
  '--jobs',
  '2',
  '--quiet',
] as const;

/**
 * Runs the CLI on `input`. With `peakEveryMs`, answers the peak memory of its process tree sampled that
 * often, as the server's is, so that both runs of a comparison pay for a sampler alike.
 */
export async function ocrmypdfCli(
  input: string,
  output: string,
  peakEveryMs?: number,
): Promise<number | undefined> {
  const running = run('ocrmypdf', [...OCRMYPDF_OPTIONS, input, output], {
    env: { ...process.env, OMP_THREAD_LIMIT: '1' },
  });
  const sampler =
    peakEveryMs === undefined ? undefined : sampleTreePeak(running.child.pid ?? process.pid, peakEveryMs);
  try {
    await running;
  } catch (error) {
    await sampler?.stop();
    throw error;
  }
  return sampler?.stop();
}
