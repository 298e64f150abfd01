import { describe, expect, it } from 'vitest';
import { characterErrorRate } from './character-error-rate.js';

describe('characterErrorRate', () => {
  it.each<[string, string, string, number]>([
    ['identical', 'abc def', 'abc def', 0],
    ['layout whitespace ignored', 'abc\n  def ', 'abc def', 0],
    ['one substitution in four', 'abxd', 'abcd', 0.25],
    ['one deletion in four', 'abd', 'abcd', 0.25],
    ['one insertion in four', 'abcxd', 'abcd', 0.25],
    ['nothing read', '', 'abcd', 1],
    ['umlaut and sharp s spelt out', 'Grosse', 'Größe', 0.6],
    ['composed vs decomposed is equal', 'Gro\u0308ße', 'Größe', 0],
  ])('%s', (_name, recognised, expected, rate) => {
    expect(characterErrorRate(recognised, expected)).toBeCloseTo(rate, 5);
  });
});
