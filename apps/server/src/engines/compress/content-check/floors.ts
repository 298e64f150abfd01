// The floors every compression output is held to before it is returned (issue #9), in one place.
// Measured on this project's corpus and public PDFs (../README.md): legitimate outputs at every level
// scored well above both; blanked pages and dropped images scored 0-13 dB, dropped text lost most words.

export const CONTENT_FLOORS = {
  /** Lowest PSNR (dB) of any sampled page, rendered in greyscale (render.ts), against the input's. */
  psnrDb: 20,
  /** Share of the input's distinct words (on the sampled pages) the output must still have, in %. */
  wordRetentionPercent: 95,
} as const;

export interface PageScore {
  /** 1-based page number. */
  page: number;
  /** Infinity when the renders are identical (blank in both included: nothing was there to lose). */
  psnrDb: number;
}

export interface WordScore {
  /** Distinct words of the input on the sampled pages. */
  reference: number;
  /** How many of them the output still has. */
  kept: number;
}

/** Why the output's pages fall below the PSNR floor, or undefined when every sampled page clears it. */
export function pagesBelowFloor(pages: readonly PageScore[]): string | undefined {
  const worst = pages.reduce<PageScore | undefined>(
    (low, score) => (low === undefined || score.psnrDb < low.psnrDb ? score : low),
    undefined,
  );
  if (worst === undefined || worst.psnrDb >= CONTENT_FLOORS.psnrDb) return undefined;
  return `page ${worst.page} differs from the input: ${worst.psnrDb.toFixed(1)} dB PSNR, floor ${CONTENT_FLOORS.psnrDb} dB`;
}

/** Why the output's words fall below the retention floor, or undefined when it kept enough. */
export function wordsBelowFloor(words: WordScore): string | undefined {
  // In integers, so 19 of 20 words is exactly 95%, whatever floating point would make of 19 / 20.
  if (words.kept * 100 >= CONTENT_FLOORS.wordRetentionPercent * words.reference) return undefined;
  const percent = ((words.kept / words.reference) * 100).toFixed(1);
  return `kept ${words.kept} of the input's ${words.reference} distinct words (${percent}%), floor ${CONTENT_FLOORS.wordRetentionPercent}%`;
}
