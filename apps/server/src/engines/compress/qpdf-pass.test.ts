import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lyingCountPdf, textPdf, writeFixture } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Objects } from '../pdf/qpdf-json.js';
import { runQpdf } from '../pdf/run-qpdf.js';
import { detectTools } from '../tools.js';
import { wrongCounts } from './page-tree-counts.js';
import { qpdfLosslessPass } from './qpdf-pass.js';

const { qpdf } = await detectTools();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-qpdf-pass-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** qpdf JSON objects: a catalog (1) whose /Pages is 2, and the given nodes and pages. */
const tree = (nodes: Record<string, Record<string, unknown>>): Objects =>
  ({
    trailer: { value: { '/Root': '1 0 R' } },
    'obj:1 0 R': { value: { '/Type': '/Catalog', '/Pages': '2 0 R' } },
    ...Object.fromEntries(Object.entries(nodes).map(([ref, value]) => [`obj:${ref}`, { value }])),
  }) as Objects;
const page = { '/Type': '/Page' };

describe('wrongCounts', () => {
  // [name, { given: the page tree, want: the nodes whose /Count is wrong, with the right one }]
  const table: [string, { given: Objects; want: [string, number][] | undefined }][] = [
    [
      'counts right',
      {
        given: tree({ '2 0 R': { '/Type': '/Pages', '/Count': 1, '/Kids': ['3 0 R'] }, '3 0 R': page }),
        want: [],
      },
    ],
    [
      'a root claiming 9999999999 over one page',
      {
        given: tree({
          '2 0 R': { '/Type': '/Pages', '/Count': 9_999_999_999, '/Kids': ['3 0 R'] },
          '3 0 R': page,
        }),
        want: [['2 0 R', 1]],
      },
    ],
    [
      'an inner node lying too',
      {
        given: tree({
          '2 0 R': { '/Type': '/Pages', '/Count': 1, '/Kids': ['3 0 R', '4 0 R'] },
          '3 0 R': page,
          '4 0 R': { '/Type': '/Pages', '/Count': 7, '/Kids': ['5 0 R', '6 0 R'] },
          '5 0 R': page,
          '6 0 R': page,
        }),
        want: [
          ['4 0 R', 2],
          ['2 0 R', 3],
        ],
      },
    ],
    [
      'a loop: not a tree',
      { given: tree({ '2 0 R': { '/Type': '/Pages', '/Count': 1, '/Kids': ['2 0 R'] } }), want: undefined },
    ],
    ['no page tree', { given: tree({}), want: undefined }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    const wrong = wrongCounts(given);
    expect(wrong && [...wrong]).toEqual(want);
  });
});

describe.skipIf(qpdf === undefined)('qpdfLosslessPass', () => {
  const run = (cwd: string) => ({ qpdf: qpdf as NonNullable<typeof qpdf>, cwd, timeoutMs: 60_000 });
  const rootCount = async (path: string, cwd: string) =>
    (await runQpdf(['--show-npages', path], run(cwd))).stdout.trim();

  it.each([
    ['/Count 65535 over 3 pages', 65_535],
    ['/Count 1 over 3 pages', 1],
  ])('writes the true page count where the input says %s', { timeout: 60_000 }, async (_name, claimed) => {
    const input = await writeFixture(dir, `lying-${claimed}.pdf`, lyingCountPdf(3, claimed));
    const cwd = await mkdtemp(join(dir, 'job-'));
    // qpdf alone keeps the lie.
    expect(await qpdfLosslessPass(input, 'plain.pdf', run(cwd))).toEqual({
      path: join(cwd, 'plain.pdf'),
      repaired: false,
    });
    expect(await rootCount(join(cwd, 'plain.pdf'), cwd)).toBe(String(claimed));
    // Given the pages inspection found, the rewrite corrects it.
    const pass = await qpdfLosslessPass(input, 'counted.pdf', run(cwd), 3);
    expect(pass).toEqual({ path: join(cwd, 'counted.pdf'), repaired: false });
    expect(await rootCount(join(cwd, 'counted.pdf'), cwd)).toBe('3');
    expect((await runQpdf(['--check', join(cwd, 'counted.pdf')], run(cwd))).exitCode).toBe(0);
  });

  it('rewrites a file whose counts are right once', { timeout: 60_000 }, async () => {
    const input = await writeFixture(dir, 'text.pdf', await textPdf({ pages: 2 }));
    const cwd = await mkdtemp(join(dir, 'job-'));
    expect(await qpdfLosslessPass(input, 'out.pdf', run(cwd), 2)).toEqual({
      path: join(cwd, 'out.pdf'),
      repaired: false,
    });
    expect(await rootCount(join(cwd, 'out.pdf'), cwd)).toBe('2');
  });
});
