// The floors every compression output is held to before it is returned (issue #9), in one place.
// Measured on this project's corpus and public PDFs (../README.md): legitimate outputs at every level
// scored well above both; blanked pages and dropped images scored 0-13 dB, dropped text lost most words.
// Characters and structure have no tolerance: a legitimate rewrite keeps every one.
import type { PdfStructure } from './pdf-structure.js';

export const CONTENT_FLOORS = {
  /** Lowest PSNR (dB) of any sampled page, rendered in greyscale (render.ts), against the input's. */
  psnrDb: 20,
  /**
   * Share of a sampled page's marks (pixels darker than pgm.ts MARK_BELOW) the output must keep, in %,
   * on pages with at least `minMarks`, below which anti-aliasing alone moves the count. PSNR is a
   * page-wide average: a lone glyph that Ghostscript's legacy interpreter dropped left its page at 45 dB.
   * The e2e judge holds outputs to the same (legitimate rewrites kept 0.93-1.41 of the marks, lost
   * pages none).
   */
  marksKeptPercent: 50,
  minMarks: 16,
  /** Share of the input's distinct words (on the sampled pages) the output must still have, in %. */
  wordRetentionPercent: 95,
  /**
   * Distinct characters of the input's text (words.ts) the output may lose. None: a rewrite that loses
   * a font's encoding remaps glyphs to other characters, and PDF Tools' Helvetica or macOS Pages' curly
   * quotes were one character in a document of words that otherwise survived.
   */
  lostCharacters: 0,
} as const;

export interface PageScore {
  /** 1-based page number. */
  page: number;
  /** Infinity when the renders are identical (blank in both included: nothing was there to lose). */
  psnrDb: number;
  /** Marks on the input's page and on the output's. */
  marks: { reference: number; candidate: number };
}

export interface WordScore {
  /** Distinct words of the input on the sampled pages. */
  reference: number;
  /** How many of them the output still has. */
  kept: number;
}

/** Why the output's pages fall below the PSNR or marks floor, or undefined when every sampled page clears both. */
export function pagesBelowFloor(pages: readonly PageScore[]): string | undefined {
  const worst = pages.reduce<PageScore | undefined>(
    (low, score) => (low === undefined || score.psnrDb < low.psnrDb ? score : low),
    undefined,
  );
  if (worst !== undefined && worst.psnrDb < CONTENT_FLOORS.psnrDb) {
    return `page ${worst.page} differs from the input: ${worst.psnrDb.toFixed(1)} dB PSNR, floor ${CONTENT_FLOORS.psnrDb} dB`;
  }
  const faded = pages.find(
    ({ marks }) =>
      marks.reference >= CONTENT_FLOORS.minMarks &&
      marks.candidate * 100 < CONTENT_FLOORS.marksKeptPercent * marks.reference,
  );
  if (faded === undefined) return undefined;
  const { reference, candidate } = faded.marks;
  return `page ${faded.page} kept ${candidate} of its ${reference} marks, floor ${CONTENT_FLOORS.marksKeptPercent}%`;
}

/** Why the output's words fall below the retention floor, or undefined when it kept enough. */
export function wordsBelowFloor(words: WordScore): string | undefined {
  // In integers, so 19 of 20 words is exactly 95%, whatever floating point would make of 19 / 20.
  if (words.kept * 100 >= CONTENT_FLOORS.wordRetentionPercent * words.reference) return undefined;
  const percent = ((words.kept / words.reference) * 100).toFixed(1);
  return `kept ${words.kept} of the input's ${words.reference} distinct words (${percent}%), floor ${CONTENT_FLOORS.wordRetentionPercent}%`;
}

/**
 * Why the output's sampled pages draw fewer images than the input's (drawn-images.ts), or undefined
 * when each draws at least as many. No tolerance: an image too small or pale for the page's PSNR and
 * marks is still content.
 */
export function imagesBelowFloor(
  input: ReadonlyMap<number, number>,
  output: ReadonlyMap<number, number>,
): string | undefined {
  for (const [page, count] of input) {
    const kept = output.get(page) ?? 0;
    if (kept < count) return `page ${page} draws ${kept} of the input's ${count} images`;
  }
  return undefined;
}

/** Why the output's text lost characters, or undefined when it kept every one (`lost`, words.ts). */
export function charactersBelowFloor(lost: readonly string[], reference: number): string | undefined {
  if (lost.length <= CONTENT_FLOORS.lostCharacters) return undefined;
  const shown = lost.slice(0, 10).map((character) => JSON.stringify(character));
  return `lost ${lost.length} of the input's ${reference} distinct characters (${shown.join(' ')}), floor ${CONTENT_FLOORS.lostCharacters}`;
}

/** The entries of `reference` that `candidate` lacks, counting repeats (a multiset difference). */
function missing(reference: readonly string[], candidate: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const entry of candidate) left.set(entry, (left.get(entry) ?? 0) + 1);
  return reference.filter((entry) => {
    const count = left.get(entry) ?? 0;
    left.set(entry, count - 1);
    return count <= 0;
  });
}

/** At most five entries of at most 80 characters each: a bookmark's title can be 65,535 bytes long. */
function listed(entries: readonly string[]): string {
  const short = (entry: string) => (entry.length > 80 ? `${entry.slice(0, 79)}…` : entry);
  const shown = entries.slice(0, 5).map(short).join('; ');
  return entries.length > 5 ? `${shown}; and ${entries.length - 5} more` : shown;
}

/**
 * Why the output lost part of the input's structure (pdf-structure.ts), or undefined when it kept it
 * all: every form field with its value, every annotation of every page (by subtype), every attached
 * file and every outline entry. The output may hold more, never less.
 */
export function structureBelowFloor(input: PdfStructure, output: PdfStructure): string | undefined {
  const losses: string[] = [];
  const fields = missing(input.fields, output.fields);
  if (fields.length > 0) losses.push(`form fields lost or changed: ${listed(fields)}`);
  for (const [index, annotations] of input.annotations.entries()) {
    const lost = missing(annotations, output.annotations[index] ?? []);
    if (lost.length > 0) losses.push(`page ${index + 1} lost annotations: ${listed(lost)}`);
  }
  const attachments = missing(input.attachments, output.attachments);
  if (attachments.length > 0) losses.push(`attached files lost: ${listed(attachments)}`);
  const outlines = missing(input.outlines, output.outlines);
  if (outlines.length > 0) losses.push(`outline entries lost: ${listed(outlines)}`);
  return losses.length === 0 ? undefined : losses.join('; ');
}
