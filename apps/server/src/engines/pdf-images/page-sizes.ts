// Each page's size as pdftoppm draws it, read before drawing anything, so that the pixel budget is
// decided first, where the engine cannot read it itself (../pdf/page-walk/shown-sizes.ts): poppler's
// pdfinfo over runs of pages (`Page N size: W x H pts` and `Page N rot: R`), a run short enough that
// its listing stays within what runTool keeps of a tool's output.
import { InternalError } from '../../errors.js';
import { runTool } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';

/** A page as a reader shows it (its crop box, its rotation applied), in points. */
export interface PageSize {
  width: number;
  height: number;
}

/** Some 90 bytes of listing a page: 400 pages stay well within runTool's 64 KiB. */
const PAGES_PER_RUN = 400;

/** The pages of a `pdfinfo -f A -l B` listing, turned as their /Rotate says. */
export function parsePageSizes(listing: string): Map<number, PageSize> {
  const rotations = new Map<number, number>();
  for (const match of listing.matchAll(/^Page\s+(\d+)\s+rot:\s+(\d+)/gm))
    rotations.set(Number(match[1]), Number(match[2]) % 180);
  const sizes = new Map<number, PageSize>();
  for (const match of listing.matchAll(/^Page\s+(\d+)\s+size:\s+([\d.]+) x ([\d.]+) pts/gm)) {
    const page = Number(match[1]);
    const [width, height] = [Number(match[2]), Number(match[3])];
    sizes.set(page, rotations.get(page) === 90 ? { width: height, height: width } : { width, height });
  }
  return sizes;
}

/** The shown size of each of `pages` (ascending) of the PDF at `path`. */
export async function readPageSizes(
  path: string,
  pages: readonly number[],
  pdfinfo: ToolInfo,
  run: { cwd: string; timeoutMs: number; signal: AbortSignal },
): Promise<Map<number, PageSize>> {
  const sizes = new Map<number, PageSize>();
  for (let at = 0; at < pages.length; ) {
    const first = pages[at] ?? 1;
    const last = Math.min(first + PAGES_PER_RUN - 1, pages[pages.length - 1] ?? first);
    const result = await runTool(pdfinfo.path, ['-f', String(first), '-l', String(last), path], run);
    if (result.exitCode !== 0)
      throw new InternalError(`pdfinfo could not read the pages' sizes: ${result.stderr.trim()}`);
    for (const [page, size] of parsePageSizes(result.stdout)) sizes.set(page, size);
    while (at < pages.length && (pages[at] ?? 0) <= last) at += 1;
  }
  return sizes;
}
