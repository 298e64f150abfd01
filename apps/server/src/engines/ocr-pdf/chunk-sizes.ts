// How many pages the next chunk of a long document takes (chunked-reader.ts). A chunk should take
// about CHUNK_TARGET_MS, the longest another user waits for this job's slot, and no more chunks than
// that needs: each is a new engine run, and OCRmyPDF's start and finish cost about 0.45 s a run here
// (its CLI on 4, 10 and 20 pages of one scan: 1.89, 3.73 and 7.16 s). So the time a chunk will take is
// estimated before it runs, from the pixels of its pages (document-listing.ts) at a pace in
// milliseconds per megapixel of one parallel reader: DEFAULT_PACE until a chunk of this document has
// been read, then the pace that chunk was read at.

/** How long a chunk should take: the longest another user waits for this job's slot. */
export const CHUNK_TARGET_MS = 10_000;
/**
 * The pace assumed before any page of the document is read, in ms per megapixel per reader, on the
 * slow side: OCRmyPDF read the bench's typed 200 dpi scans at about 200 here, and CI hosts have run
 * the same work up to 2.2 times slower. A document taken for faster than it is would hold its slot
 * for longer than a chunk; one taken for slower is only cut once more.
 */
export const DEFAULT_PACE = 500;
/**
 * The fastest pace believed from a chunk: its pages may have been skipped (they had text), while the
 * next chunk's are read.
 */
const FASTEST_PACE = DEFAULT_PACE / 4;

const MEGAPIXEL = 1_000_000;

/** The pace a chunk of `pixels` read by `readers` at once in `ms` shows, within what is believed. */
export function measuredPace(ms: number, pixels: number, readers: number): number {
  return Math.max(FASTEST_PACE, (ms * readers) / (pixels / MEGAPIXEL));
}

/**
 * The pages of the next chunk, from the pixels of the pages left, in order: an equal share of the
 * estimated time left, in as few chunks of at most `targetMs` as will do, in whole rounds of the
 * engine's `readers` (a last round with a reader idle is time lost), at least one round.
 */
export function nextChunkPages(
  pixelsLeft: readonly number[],
  { pace, readers, targetMs }: { pace: number; readers: number; targetMs: number },
): number {
  const wallMs = pixelsLeft.map((pixels) => (pixels / MEGAPIXEL) * (pace / readers));
  const totalMs = wallMs.reduce((sum, ms) => sum + ms, 0);
  const chunks = Math.ceil(totalMs / targetMs);
  if (chunks <= 1) return pixelsLeft.length;
  const shareMs = totalMs / chunks;
  let pages = 0;
  let taken = 0;
  // A page goes in when most of it fits the share.
  while (pages < wallMs.length && taken + (wallMs[pages] ?? 0) / 2 <= shareMs) {
    taken += wallMs[pages] ?? 0;
    pages += 1;
  }
  return Math.min(pixelsLeft.length, Math.max(1, Math.round(pages / readers)) * readers);
}
