// The floors every compression output is held to before it is returned, in one place.
// Measured on this project's corpus and public PDFs (../README.md): legitimate outputs at every level
// scored well above both; blanked pages and dropped images scored 0-13 dB, dropped text lost most words.
// Characters and structure have no tolerance: a legitimate rewrite keeps every one.
import { filterNames, type PdfStructure, type StoredStream } from './pdf-structure.js';
import { type PageComparison, psnrOf, type TileSums } from './pgm.js';

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
  /**
   * Tiles (pgm.ts tileGrid): half an inch a side at the render's resolution (20 pixels at 40 dpi), and
   * the floors each must clear. Calibrated on the corpus (../README.md): every answer at every level
   * cleared them (lowest: 13.5 dB, 26.3 dB paper, similarity 0.62), while a short rule gone, a line
   * drawn in another font or an image filled with its average colour fell below one of them.
   */
  tileInches: 0.5,
  /** Lowest PSNR (dB) of any tile: a photo legitimately re-encoded stays above, one gone flat does not. */
  tileDb: 10,
  /** Lowest PSNR (dB) of a tile's paper (TileScore.paperDb). */
  paperTileDb: 24,
  /** The share of a tile that must be paper for its shapes to be compared (TileScore.similarity). */
  paperTileShare: 0.5,
  /** Lowest structural similarity of a tile that is mostly paper. */
  tileSimilarity: 0.5,
} as const;

/** A sampled page's comparison (pgm.ts): PSNR, marks and tiles. */
export interface PageScore extends PageComparison {
  /** 1-based page number. */
  page: number;
}

/** A tile's scores against its floors (CONTENT_FLOORS): the lower, the more it changed. */
export interface TileScore {
  /** PSNR (dB) of the whole tile. */
  db: number;
  /**
   * PSNR (dB) of its paper: the squared differences of the pixels that are paper on either page
   * (pgm.ts PAPER_FROM), over all the tile's pixels. Ink gone from paper, or drawn where there was none.
   */
  paperDb: number;
  /**
   * Structural similarity of the tile (SSIM with the tile as one window, -1 to 1), where at least
   * `paperTileShare` of it is paper: text and line art, whose shapes a rewrite keeps. Undefined elsewhere
   * (photos and scans, which a rewrite may re-encode).
   */
  similarity: number | undefined;
}

/** SSIM's stabilising constants for 8-bit pixels (Wang et al. 2004: K1 0.01, K2 0.03). */
const [C1, C2] = [(0.01 * 255) ** 2, (0.03 * 255) ** 2];

export function tileScore(tile: TileSums): TileScore {
  const n = tile.pixels;
  const [meanA, meanB] = [tile.reference / n, tile.candidate / n];
  const varianceA = tile.referenceSquares / n - meanA * meanA;
  const varianceB = tile.candidateSquares / n - meanB * meanB;
  const covariance = tile.products / n - meanA * meanB;
  const paper = tile.paperPixels >= CONTENT_FLOORS.paperTileShare * n;
  return {
    db: psnrOf(tile.squaredError, n),
    paperDb: psnrOf(tile.paperSquaredError, n),
    similarity: paper
      ? ((2 * meanA * meanB + C1) * (2 * covariance + C2)) /
        ((meanA * meanA + meanB * meanB + C1) * (varianceA + varianceB + C2))
      : undefined,
  };
}

/**
 * Why a tile of the sampled pages falls below a tile floor (the first found, page by page, across then
 * down), or undefined when every tile clears them. Judged after the rest of the check, so a loss the
 * pages, images, text or structure already name is refused for that reason.
 */
export function tilesBelowFloor(pages: readonly PageScore[]): string | undefined {
  for (const page of pages) {
    const below = tileBelowFloor(page);
    if (below !== undefined) return below;
  }
  return undefined;
}

function tileBelowFloor(score: PageScore): string | undefined {
  const f = CONTENT_FLOORS;
  for (const [index, tile] of score.tiles.entries()) {
    const { db, paperDb, similarity } = tileScore(tile);
    const [column, row] = [(index % score.tileColumns) + 1, Math.floor(index / score.tileColumns) + 1];
    const where = `page ${score.page}'s tile ${column},${row} (${f.tileInches} inch square, across then down)`;
    if (db < f.tileDb) return `${where} differs from the input: ${db.toFixed(1)} dB, floor ${f.tileDb} dB`;
    if (paperDb < f.paperTileDb)
      return `${where} changed where it shows paper: ${paperDb.toFixed(1)} dB, floor ${f.paperTileDb} dB`;
    if (similarity !== undefined && similarity < f.tileSimilarity)
      return `${where} changed shape: similarity ${similarity.toFixed(2)}, floor ${f.tileSimilarity}`;
  }
  return undefined;
}

/** The lowest of each tile score over the pages: the margins above the tile floors, for the log. */
export function worstTiles(pages: readonly PageScore[]): TileScore | undefined {
  const scores = pages.flatMap((page) => page.tiles.map(tileScore));
  if (scores.length === 0) return undefined;
  const similarities = scores.flatMap(({ similarity }) => (similarity === undefined ? [] : [similarity]));
  return {
    db: Math.min(...scores.map((score) => score.db)),
    paperDb: Math.min(...scores.map((score) => score.paperDb)),
    similarity: similarities.length === 0 ? undefined : Math.min(...similarities),
  };
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

/**
 * Why the output's text has fewer of some character than the input's (words.ts fewerOccurrences), or
 * undefined when it has as many of each. No tolerance: on the corpus, no answer at any level lost one.
 */
export function occurrencesBelowFloor(
  fewer: readonly { character: string; kept: number; had: number }[],
): string | undefined {
  if (fewer.length === 0) return undefined;
  const shown = fewer
    .slice(0, 5)
    .map(({ character, kept, had }) => `${JSON.stringify(character)} ${kept} of ${had}`);
  return `has fewer of ${fewer.length} of the input's characters (${shown.join(', ')}), floor: every one`;
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

/**
 * Filters qpdf's lossless rewrite may take off a stream and replace with its own Flate (its default
 * --decode-level=generalized); any other filter it leaves, bytes and all.
 */
const GENERALIZED_FILTERS = new Set([
  '/FlateDecode',
  '/LZWDecode',
  '/ASCII85Decode',
  '/ASCIIHexDecode',
  '/RunLengthDecode',
]);

/** Whether qpdf's lossless rewrite could have turned `input`'s stream into `output`'s. */
function rewrittenLosslessly(input: StoredStream, output: StoredStream): boolean {
  if (input.pixels !== output.pixels) return false;
  if (input.filters === output.filters) return input.length === undefined || input.length === output.length;
  return (
    filterNames(input).every((filter) => GENERALIZED_FILTERS.has(filter)) &&
    output.filters === '"/FlateDecode"'
  );
}

/**
 * For a lossless rewrite only (qpdf's, of an input it read without repairs): why a page's drawing
 * changed, or undefined when every stream each page draws from (contents, images, forms) is stored as
 * qpdf would have kept it (pdf-structure.ts StoredStream). A rewrite that draws differently, a
 * Ghostscript one, is judged by its renders instead.
 */
export function storedStreamsChanged(input: PdfStructure, output: PdfStructure): string | undefined {
  for (const [index, streams] of input.streams.entries()) {
    const kept = new Map((output.streams[index] ?? []).map((stream) => [stream.at, stream]));
    for (const stream of streams) {
      const after = kept.get(stream.at);
      if (after === undefined) return `page ${index + 1} no longer draws its ${stream.at}`;
      if (!rewrittenLosslessly(stream, after)) {
        const was = `${stream.filters} ${stream.length ?? '?'} bytes${stream.pixels ? `, ${stream.pixels}` : ''}`;
        const now = `${after.filters} ${after.length ?? '?'} bytes${after.pixels ? `, ${after.pixels}` : ''}`;
        return `page ${index + 1}'s ${stream.at} changed: ${was} before, ${now} after`;
      }
    }
  }
  return undefined;
}
