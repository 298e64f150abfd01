// "Did you mean" for values the server lists, such as OCR language codes ("Unknown
// language: suggest `pdn languages`, and the closest codes").

/** Levenshtein distance: insertions, deletions and substitutions each cost 1. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/** Up to `max` candidates within 2 edits of `word` (case ignored), nearest first, then by name. */
export function closest(word: string, candidates: readonly string[], max = 3): string[] {
  const given = word.toLowerCase();
  return candidates
    .map((candidate) => ({ candidate, distance: editDistance(given, candidate.toLowerCase()) }))
    .filter(({ distance }) => distance <= 2)
    .sort((x, y) => x.distance - y.distance || x.candidate.localeCompare(y.candidate))
    .slice(0, max)
    .map(({ candidate }) => candidate);
}
