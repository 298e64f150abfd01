import { describe, expect, it } from 'vitest';
import { meantLanguages } from './check-language.js';
import { withName } from './language-names.js';

const listed = ['ara', 'chi_sim', 'deu', 'eng', 'fra', 'spa', 'ukr'];

describe('meantLanguages', () => {
  it.each<[string, string, string[]]>([
    ['a name', 'german', ['deu']],
    ['a name in capitals', 'German', ['deu']],
    ["the language's own name, accents left out", 'francais', ['fra']],
    ['the start of a name', 'span', ['spa']],
    ['a misspelled name', 'germna', ['deu']],
    ['a misspelled code', 'engl', ['eng']],
    ['a name the server has no data for', 'russian', []],
    ['nothing like any', 'xyzzy', []],
  ])('%s: %s', (_name, word, want) => {
    expect(meantLanguages(word, listed)).toEqual(want);
  });
});

describe('withName', () => {
  it('adds the name where it is known', () => {
    expect(withName('deu')).toBe('deu (German)');
    expect(withName('xyz')).toBe('xyz');
  });
});
