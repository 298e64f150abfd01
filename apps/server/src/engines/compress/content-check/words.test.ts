import { describe, expect, it } from 'vitest';
import { characterOccurrences, distinctWords, fewerOccurrences, wordScore } from './words.js';

describe('distinctWords', () => {
  // [name, { given: extracted text, want: the distinct words }]
  const table: [string, { given: string; want: string[] }][] = [
    ['nothing', { given: '   \n\f', want: [] }],
    ['case, punctuation and repeats', { given: 'Hello, hello WORLD!\n  world.', want: ['hello', 'world'] }],
    [
      'digits and hyphenation',
      { given: 'page 12-13 (re-encode)', want: ['page', '12', '13', 're', 'encode'] },
    ],
    ['other scripts', { given: 'Größe привет 東京 café', want: ['größe', 'привет', '東京', 'café'] }],
    ['combining marks stay in the word', { given: 'cafe\u0301', want: ['cafe\u0301'] }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    expect([...distinctWords(given)]).toEqual(want);
  });
});

describe('wordScore', () => {
  // [name, { given: reference and candidate texts, want: [kept, reference] }]
  const table: [string, { given: [string, string]; want: [number, number] }][] = [
    ['all kept, spacing moved', { given: ['a b  c\nd', 'a b c d'], want: [4, 4] }],
    ['extra words in the output do not help', { given: ['one two', 'one three four'], want: [1, 2] }],
    ['no text in the input', { given: ['', 'anything'], want: [0, 0] }],
    ['text dropped', { given: ['alpha beta', ''], want: [0, 2] }],
  ];
  it.each(table)('%s', (_name, { given: [reference, candidate], want: [kept, total] }) => {
    expect(wordScore(distinctWords(reference), distinctWords(candidate))).toEqual({ kept, reference: total });
  });
});

describe('fewerOccurrences', () => {
  // [name, { given: reference and candidate texts, want: the characters the candidate has fewer of }]
  const table: [
    string,
    { given: [string, string]; want: { character: string; kept: number; had: number }[] },
  ][] = [
    ['the same text, laid out again', { given: ['a-b c\nd-e', 'a-b\tc d-e'], want: [] }],
    [
      'one hyphen of two dropped',
      { given: ['a-b d-e', 'a-b de'], want: [{ character: '-', kept: 1, had: 2 }] },
    ],
    ['case does not count', { given: ['Aa', 'aa'], want: [] }],
    ['more in the output', { given: ['ab', 'aab'], want: [] }],
  ];
  it.each(table)('%s', (_name, { given: [reference, candidate], want }) => {
    expect(fewerOccurrences(characterOccurrences(reference), characterOccurrences(candidate))).toEqual(want);
  });
});
