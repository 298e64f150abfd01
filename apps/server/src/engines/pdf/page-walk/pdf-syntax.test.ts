// A value read with less of it kept must be read exactly as one built whole: the same tokens spent, the
// cursor left at the same place, the same Doubts; only what is built differs.
import { describe, expect, it } from 'vitest';
import { PdfName } from './pdf-names.js';
import { Doubt, type Keep, PdfReader, PdfRef, type PdfValue } from './pdf-syntax.js';

interface Read {
  value: PdfValue;
  end: number;
  tokens: number;
}

function read(text: string, keep: Keep): Read | 'doubt' {
  let tokens = 0;
  const reader = new PdfReader(Buffer.from(text, 'latin1'), 0, { spendToken: () => tokens++ });
  try {
    return { value: reader.value(0, keep), end: reader.pos, tokens };
  } catch (error) {
    if (error instanceof Doubt) return 'doubt';
    throw error;
  }
}

const PAGE = '<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /MediaBox [0 0 612 792] >>';
const TYPE_ONLY: Keep = new Set(['Type']);
const MANY_KEYS = Array.from({ length: 40 }, (_, i) => `/K${i} ${i}`).join(' ');

describe('PdfReader.value builds only what it is asked to keep', () => {
  it.each<[string, { keep: Keep; want: PdfValue }]>([
    ['the entries named', { keep: TYPE_ONLY, want: new Map([['Type', new PdfName('Page')]]) }],
    ['nothing', { keep: 'none', want: null }],
  ])('%s', (_, { keep, want }) => {
    expect((read(PAGE, keep) as Read).value).toEqual(want);
  });

  it('builds the whole page when asked to', () => {
    const page = (read(PAGE, 'all') as Read).value as Map<string, PdfValue>;
    expect(page.get('Parent')).toEqual(new PdfRef(2, 0));
    expect(page.get('MediaBox')).toEqual([0, 0, 612, 792]);
    expect(page.get('Resources')).toEqual(new Map([['Font', new Map([['F1', new PdfRef(5, 0)]])]]));
  });

  it.each([
    ['a plain page', PAGE],
    ['strings and booleans', '<< /Type /Page /A (a (nested) string) /B <48 65> /C [true null 1.5] >>'],
    ['keys of the dictionary holding it, in a nested one', '<< /Type /Page /A << /Type 1 /A 2 >> /B 3 >>'],
    ['many keys', `<< /Type /Page /Resources << ${MANY_KEYS} >> ${MANY_KEYS} >>`],
  ])('spends the same tokens and ends at the same place whatever it keeps: %s', (_, text) => {
    const whole = read(text, 'all') as Read;
    expect(whole.end).toBe(text.length);
    for (const keep of [TYPE_ONLY, 'none'] as const) {
      expect(read(text, keep)).toMatchObject({ end: whole.end, tokens: whole.tokens });
    }
  });

  it.each([
    ['a key repeated inside a dropped dictionary', '<< /Type /Page /Resources << /A 1 /A 2 >> >>'],
    ['a dropped key repeated', '<< /Type /Page /MediaBox [0 0 1 1] /MediaBox [0 0 2 2] >>'],
    ['a kept key repeated', '<< /Type /Page /Type /Pages >>'],
    ['a bad token inside a dropped array', '<< /Type /Page /MediaBox [0 0 foo 1] >>'],
    ['a dictionary key that is not a name, dropped', '<< /Type /Page /Resources << 1 2 >> >>'],
    ['a key repeated after many others', `<< /Type /Page /Resources << ${MANY_KEYS} /K7 0 >> >>`],
  ])('doubts alike whatever it keeps: %s', (_, text) => {
    for (const keep of ['all', TYPE_ONLY, 'none'] as const) expect(read(text, keep)).toBe('doubt');
  });
});
