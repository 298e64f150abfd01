// The pages drawn by Ghostscript where poppler is not installed: its new PDF interpreter, -dSAFER,
// handed the file as a PDF and never as PostScript (../compress/presets.ts pdfInterpreterInput), under
// the same memory limit as pdftoppm. The sizes come from its own -dPDFINFO report, so they are the ones
// it draws: the crop box (-dUseCropBox), turned as /Rotate says, times /UserUnit, which Ghostscript
// applies and poppler does not. Each run draws the pages of one planned size into a raster of exactly
// that size (-g with -dFIXEDMEDIA and -dPDFFitPage), so an image is the size the budget was decided on,
// whether it was asked at a resolution or a width; pages of one size share a run, listed with
// -sPageList. Text and line art are anti-aliased, as pdftoppm draws them.
import { join, resolve } from 'node:path';
import { InternalError } from '../../errors.js';
import { ghostscriptCommonArgs, pdfInterpreterInput } from '../compress/presets.js';
import { isOutOfMemory } from '../ocr/recognizer.js';
import { pageListText } from '../ocr-pdf/page-selection.js';
import { runTool } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';
import { needsMoreMemory, type PageRenderer, type RenderRun } from './page-renderer.js';
import type { PageSize } from './page-sizes.js';
import type { PlannedImage } from './render-plan.js';
import type { RenderRequest } from './types.js';

/** Pages per -dPDFINFO run: some 80 bytes each, well within the 64 KiB runTool keeps of a tool's output. */
const PAGES_PER_INFO_RUN = 400;

/** Ghostscript's `VMerror` is its own word for an allocation refused. */
function outOfMemory(output: string): boolean {
  return isOutOfMemory(output) || /VMerror/.test(output);
}

type Box = [number, number, number, number];

function boxOf(text: string | undefined): Box | undefined {
  if (text === undefined) return undefined;
  const numbers = text.trim().split(/\s+/).map(Number);
  if (numbers.length !== 4 || numbers.some((n) => !Number.isFinite(n))) return undefined;
  const [x1, y1, x2, y2] = numbers as Box;
  return [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
}

/**
 * The shown size of each page of a -dPDFINFO report, e.g.
 *   Page 1 UserUnit: 10.000000  MediaBox: [0 0 1800 3600]
 *   Page 2 MediaBox: [0 0 792 612] CropBox: [10 10 400 600]    Rotate = 90
 * The crop box is clipped to the media box, as both renderers clip it.
 */
export function parsePdfInfo(report: string): Map<number, PageSize> {
  const sizes = new Map<number, PageSize>();
  for (const [, page, rest = ''] of report.matchAll(/^Page (\d+)\b(.*)$/gm)) {
    const media = boxOf(/MediaBox: \[([^\]]*)\]/.exec(rest)?.[1]);
    if (media === undefined) continue;
    const crop = boxOf(/CropBox: \[([^\]]*)\]/.exec(rest)?.[1]) ?? media;
    const width = Math.min(crop[2], media[2]) - Math.max(crop[0], media[0]);
    const height = Math.min(crop[3], media[3]) - Math.max(crop[1], media[1]);
    const unit = Number(/UserUnit: ([\d.]+)/.exec(rest)?.[1] ?? 1);
    const scale = Number.isFinite(unit) && unit > 0 ? unit : 1;
    const turned = Number(/Rotate = (-?\d+)/.exec(rest)?.[1] ?? 0) % 180 !== 0;
    const [shownWidth, shownHeight] = turned ? [height, width] : [width, height];
    if (shownWidth > 0 && shownHeight > 0)
      sizes.set(Number(page), { width: shownWidth * scale, height: shownHeight * scale });
  }
  return sizes;
}

/** The pages of `planned` grouped by their size, each group in page order: one Ghostscript run each. */
export function sizeGroups(planned: readonly PlannedImage[]): PlannedImage[][] {
  const groups = new Map<string, PlannedImage[]>();
  for (const image of planned) {
    const key = `${image.width}x${image.height}`;
    groups.set(key, [...(groups.get(key) ?? []), image]);
  }
  return [...groups.values()];
}

/**
 * Ghostscript's arguments to draw `group` (pages of one planned size) into `<prefix>-<n>.<png|jpg>`,
 * n counting the group's pages from 1. The resolution is the one asked, or the one that makes the page
 * the width asked; the raster is the planned size exactly and the page is fitted into it.
 */
export function ghostscriptArgs(
  request: RenderRequest,
  group: readonly PlannedImage[],
  pdf: string,
  prefix: string,
): string[] {
  const [first] = group;
  if (first === undefined) throw new Error('no pages to draw');
  const dpi = 'dpi' in request.scale ? request.scale.dpi : (first.width * 72) / first.shown.width;
  const device =
    request.format === 'png'
      ? ['-sDEVICE=png16m', `-sOutputFile=${prefix}-%d.png`]
      : ['-sDEVICE=jpeg', `-dJPEGQ=${request.quality}`, `-sOutputFile=${prefix}-%d.jpg`];
  return [
    ...ghostscriptCommonArgs('default'),
    `-sPageList=${pageListText(group.map((image) => image.page))}`,
    '-dUseCropBox',
    `-r${Math.round(dpi * 1000) / 1000}`,
    `-g${first.width}x${first.height}`,
    '-dFIXEDMEDIA',
    '-dPDFFitPage',
    '-dTextAlphaBits=4',
    '-dGraphicsAlphaBits=4',
    ...device,
    ...pdfInterpreterInput(resolve(pdf)),
  ];
}

export function ghostscriptRenderer(gs: ToolInfo): PageRenderer {
  const run = (args: string[], on: RenderRun) =>
    runTool(gs.path, args, {
      cwd: on.folder,
      timeoutMs: on.timeoutMs,
      signal: on.signal,
      ...(on.memoryLimit === undefined ? {} : { memoryLimit: on.memoryLimit }),
    });
  return {
    name: 'ghostscript',
    async pageSizes(pdf, pages, on) {
      const sizes = new Map<number, PageSize>();
      for (let at = 0; at < pages.length; at += PAGES_PER_INFO_RUN) {
        const some = pages.slice(at, at + PAGES_PER_INFO_RUN);
        const args = [
          ...ghostscriptCommonArgs('default'),
          `-sPageList=${pageListText(some)}`,
          '-dNODISPLAY',
          '-dPDFINFO',
          ...pdfInterpreterInput(resolve(pdf)),
        ];
        const result = await run(args, on);
        if (result.exitCode !== 0)
          throw new InternalError(`Ghostscript could not read the pages' sizes: ${result.stderr.trim()}`);
        for (const [page, size] of parsePdfInfo(`${result.stdout}\n${result.stderr}`)) sizes.set(page, size);
      }
      return sizes;
    },
    async draw(pdf, planned, request, on) {
      const drawn = new Map<number, string>();
      const extension = request.format === 'png' ? 'png' : 'jpg';
      for (const [index, group] of sizeGroups(planned).entries()) {
        const prefix = `run-${index + 1}`;
        const result = await run(ghostscriptArgs(request, group, pdf, prefix), on);
        const said = `${result.stdout}\n${result.stderr}`;
        if (result.exitCode !== 0) {
          const pages = pageListText(group.map((image) => image.page));
          if (on.memoryLimit !== undefined && outOfMemory(said))
            throw needsMoreMemory(pages, on.label, on.memoryLimit);
          throw new InternalError(`Ghostscript could not draw pages ${pages}: ${said.trim()}`);
        }
        for (const [n, image] of group.entries())
          drawn.set(image.page, join(on.folder, `${prefix}-${n + 1}.${extension}`));
      }
      return drawn;
    },
  };
}
