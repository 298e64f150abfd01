// What the native reader must know of one PDF page before drawing it: its size
// and rotation (poppler's pdfinfo), its images' resolutions and sizes (pdfimages -list), and whether
// it already has text (pdftotext). Three short poppler runs side by side, per page, so a 5000-page
// document never puts a whole-document listing in memory (runTool keeps 64 KiB of output).
import { runTool } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';

export interface PageFacts {
  /** The page as displayed (CropBox, before /Rotate), in points. */
  width: number;
  height: number;
  /** /Rotate, 0, 90, 180 or 270. */
  rotation: number;
  /** The highest resolution of the page's images, in pixels per inch; undefined for a page without images. */
  imagePpi: number | undefined;
  /** Pixels of the page's largest image, as its dictionary declares. */
  largestImagePixels: number;
  /** The page already has text of its own (visible or not). */
  hasText: boolean;
}

export interface PageFactTools {
  pdfinfo: ToolInfo;
  pdfimages: ToolInfo;
  pdftotext: ToolInfo;
}

export interface ToolRun {
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/** `Page    3 size: 612 x 792 pts (letter)` and `Page    3 rot:  90` of `pdfinfo -f 3 -l 3`. */
export function parsePdfinfoPage(output: string): Pick<PageFacts, 'width' | 'height' | 'rotation'> {
  const size = /^Page\s+\d+\s+size:\s+([\d.]+) x ([\d.]+) pts/m.exec(output);
  const rotation = /^Page\s+\d+\s+rot:\s+(\d+)/m.exec(output);
  if (size === null) throw new Error(`pdfinfo did not report the page's size: ${output.trim()}`);
  return { width: Number(size[1]), height: Number(size[2]), rotation: Number(rotation?.[1] ?? 0) % 360 };
}

/** The rows of `pdfimages -list` (after its two header lines): width, height at columns 3-4, ppi at 12-13. */
export function parseImageList(output: string): Pick<PageFacts, 'imagePpi' | 'largestImagePixels'> {
  let imagePpi: number | undefined;
  let largestImagePixels = 0;
  for (const line of output.split('\n').slice(2)) {
    const columns = line.trim().split(/\s+/);
    if (columns.length < 14 || columns[2] === 'smask') continue;
    const pixels = Number(columns[3]) * Number(columns[4]);
    const ppi = Math.max(Number(columns[12]), Number(columns[13]));
    if (Number.isFinite(pixels)) largestImagePixels = Math.max(largestImagePixels, pixels);
    if (Number.isFinite(ppi) && ppi > 0) imagePpi = Math.max(imagePpi ?? 0, ppi);
  }
  return { imagePpi, largestImagePixels };
}

async function output(tool: ToolInfo, args: string[], run: ToolRun): Promise<string> {
  const result = await runTool(tool.path, args, run);
  if (result.exitCode !== 0) {
    throw new Error(`${tool.path} exited with code ${result.exitCode}: ${result.stderr.trim()}`);
  }
  return result.stdout;
}

export async function readPageFacts(
  pdf: string,
  page: number,
  tools: PageFactTools,
  run: ToolRun,
): Promise<PageFacts> {
  const range = ['-f', String(page), '-l', String(page)];
  const [info, images, text] = await Promise.all([
    output(tools.pdfinfo, [...range, pdf], run),
    output(tools.pdfimages, ['-list', ...range, pdf], run),
    output(tools.pdftotext, ['-q', '-enc', 'UTF-8', ...range, pdf, '-'], run),
  ]);
  return { ...parsePdfinfoPage(info), ...parseImageList(images), hasText: text.trim() !== '' };
}
