// Character error rate, the usual OCR accuracy measure (issue #3 asks tests to assert it below a
// threshold): the Levenshtein edit distance between what was read and the known text, divided by the
// known text's length. Whitespace runs count as one space and the ends are trimmed, because line
// breaks and spacing are layout, not characters the engine misread.
export function normaliseText(text: string): string {
  return text.normalize('NFC').replace(/\s+/gu, ' ').trim();
}

export function characterErrorRate(recognised: string, expected: string): number {
  const got = [...normaliseText(recognised)];
  const want = [...normaliseText(expected)];
  if (want.length === 0) return got.length === 0 ? 0 : 1;
  // One row of the edit-distance table at a time: O(len) memory.
  let previous = Array.from({ length: got.length + 1 }, (_, j) => j);
  for (let i = 1; i <= want.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= got.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (want[i - 1] === got[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return (previous[got.length] ?? 0) / want.length;
}
