import { describe, expect, it } from 'vitest';
import { describeJobInputs, describeOutput, formatJobProgress, formatSaving } from './format.js';

describe('formatSaving', () => {
  const cases: [string, { before: number; after: number; want: string }][] = [
    ['a third saved', { before: 300, after: 200, want: '-33.3%' }],
    ['nothing saved', { before: 300, after: 300, want: '0%' }],
    ['larger output (the server keeps the original)', { before: 300, after: 310, want: '0%' }],
    [
      'a saving that rounds to nothing (once printed as -0.0%)',
      { before: 100_000, after: 99_990, want: '0%' },
    ],
    ['an empty input', { before: 0, after: 0, want: '0%' }],
  ];
  it.each(cases)('%s', (_name, { before, after, want }) => {
    expect(formatSaving(before, after)).toBe(want);
  });
});

describe('describeOutput', () => {
  it('shows a signed URL with its expiry on the local clock and as a distance', () => {
    const expires = new Date(Date.now() + 15 * 60_000 + 500).toISOString();
    expect(describeOutput({ kind: 'url', url: 'http://h/x', expires_at: expires })).toMatch(
      /^http:\/\/h\/x \(expires (\d{4}-\d\d-\d\d )?\d\d:\d\d \(in 15 minutes\)\)$/,
    );
  });
});

describe('formatJobProgress', () => {
  const cases: [string, { given: Parameters<typeof formatJobProgress>[0]; want: string }][] = [
    ['queued', { given: { status: 'queued' }, want: 'queued:' }],
    ['running, the engine says nothing', { given: { status: 'running' }, want: 'compressing' }],
    [
      'running, 3 of 12',
      { given: { status: 'running', progress: { done: 3, total: 12 } }, want: 'compressing 3/12 of' },
    ],
    [
      'a count past the total is shown as the total',
      { given: { status: 'running', progress: { done: 13, total: 12 } }, want: 'compressing 12/12 of' },
    ],
    ['ended', { given: { status: 'succeeded' }, want: 'succeeded:' }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(formatJobProgress(given, 'compressing')).toBe(want);
  });

  it('names the unit counted when given (ocr-pdf: pages)', () => {
    const job = { status: 'running', progress: { done: 2, total: 5 } } as const;
    expect(formatJobProgress(job, 'reading', 'pages')).toBe('reading 2/5 pages of');
  });
});

describe('describeJobInputs', () => {
  const file = (name: string) => ({ name, size: 1 });
  it.each<[string, { inputs?: { name: string; size: number }[] }, string]>([
    ['one file', { inputs: [file('a.pdf')] }, 'a.pdf'],
    ['two', { inputs: [file('a.pdf'), file('b.pdf')] }, 'a.pdf, b.pdf'],
    [
      'a long merge',
      { inputs: Array.from({ length: 20 }, (_, i) => file(`p${i}.pdf`)) },
      'p0.pdf, p1.pdf and 18 more',
    ],
    ['a part sent without a filename', { inputs: [file('')] }, '(unnamed)'],
    ['a server that does not say', {}, ''],
  ])('%s', (_name, job, want) => {
    expect(describeJobInputs(job)).toBe(want);
  });
});
