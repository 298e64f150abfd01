// The text a text extractor finds, for the content check to compare. Words are runs of letters and digits in
// any script, compared case-insensitively, so line breaks, spacing and punctuation that a rewrite may shift
// do not count as losses; what is compared is the set of distinct words, as a search index would see it.
// Characters are compared too, as a set: a rewrite that loses a font's encoding turns every use of a glyph
// into another character, so that character vanishes from the text however few words it touches (macOS Pages'
// curly quotes came back as Ò and Ó, one word in a long document). Both after NFKC, so a ligature read as "ﬁ"
// in one file and "fi" in the other is the same text. And each character is counted: one glyph dropped from a
// line (a hyphen, a letter of a word that occurs elsewhere) leaves every word and every distinct character in
// place, but one fewer of it.
import type { WordScore } from './floors.js';

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/** Anything but white space and control, format, private-use or unassigned code points. */
const CHARACTER = /^[^\p{White_Space}\p{C}]$/u;

/** What the content check compares of a PDF's extracted text. */
export interface TextSample {
  words: Set<string>;
  characters: Set<string>;
  /** How many times each character occurs. */
  occurrences: Map<string, number>;
}

export function distinctWords(text: string): Set<string> {
  return new Set(text.toLowerCase().match(WORD) ?? []);
}

/**
 * How many times each character occurs, in the order they first occur. Every code point is counted
 * first and only the distinct ones are tested against CHARACTER: matching the pattern at each of a
 * 10-page text's 33,000 characters, twice (for the set and the counts), made its sample cost 10 ms of
 * CPU; counted this way, 4 ms.
 */
export function characterOccurrences(text: string): Map<string, number> {
  const all = new Map<string, number>();
  for (const character of text.toLowerCase()) all.set(character, (all.get(character) ?? 0) + 1);
  const counts = new Map<string, number>();
  for (const [character, count] of all) if (CHARACTER.test(character)) counts.set(character, count);
  return counts;
}

export function textSample(text: string): TextSample {
  const normalized = text.normalize('NFKC');
  const occurrences = characterOccurrences(normalized);
  return {
    words: distinctWords(normalized),
    characters: new Set(occurrences.keys()),
    occurrences,
  };
}

export function wordScore(reference: ReadonlySet<string>, candidate: ReadonlySet<string>): WordScore {
  let kept = 0;
  for (const word of reference) if (candidate.has(word)) kept += 1;
  return { reference: reference.size, kept };
}

/** The reference's characters the candidate no longer has, in the reference's order. */
export function lostCharacters(reference: ReadonlySet<string>, candidate: ReadonlySet<string>): string[] {
  return [...reference].filter((character) => !candidate.has(character));
}

/** The reference's characters that occur fewer times in the candidate: how many it kept of how many. */
export function fewerOccurrences(
  reference: ReadonlyMap<string, number>,
  candidate: ReadonlyMap<string, number>,
): { character: string; kept: number; had: number }[] {
  return [...reference].flatMap(([character, had]) => {
    const kept = candidate.get(character) ?? 0;
    return kept < had ? [{ character, kept, had }] : [];
  });
}
