import { describe, expect, it } from 'vitest';
import { closest, editDistance } from './closest.js';

describe('editDistance', () => {
  const cases: [string, string, number][] = [
    ['eng', 'eng', 0],
    ['engl', 'eng', 1],
    ['due', 'deu', 2],
    ['', 'rus', 3],
    ['chi_sim', 'chi_tra', 3],
  ];
  it.each(cases)('%s -> %s is %d', (a, b, want) => {
    expect(editDistance(a, b)).toBe(want);
  });
});

describe('closest', () => {
  const codes = ['eng', 'enm', 'deu', 'fra', 'rus', 'chi_sim', 'chi_tra'];
  const cases: [string, string[]][] = [
    ['engl', ['eng', 'enm']],
    ['ENG', ['eng', 'enm']],
    ['de', ['deu']],
    ['chi_si', ['chi_sim']],
    ['klingon', []],
  ];
  it.each(cases)('%s suggests %j', (word, want) => {
    expect(closest(word, codes)).toEqual(want);
  });
});
