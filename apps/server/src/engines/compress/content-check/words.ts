// The words a text extractor finds (issue #9: "compare the extractable words"). Words are runs of
// letters and digits in any script, compared case-insensitively, so line breaks, spacing and
// punctuation that a rewrite may shift do not count as losses; what is compared is the set of distinct
// words, as a search index would see it.
import type { WordScore } from './floors.js';

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

export function distinctWords(text: string): Set<string> {
  return new Set(text.toLowerCase().match(WORD) ?? []);
}

export function wordScore(reference: ReadonlySet<string>, candidate: ReadonlySet<string>): WordScore {
  let kept = 0;
  for (const word of reference) if (candidate.has(word)) kept += 1;
  return { reference: reference.size, kept };
}
