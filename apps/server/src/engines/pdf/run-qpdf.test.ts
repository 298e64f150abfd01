import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  deepPageTreePdf,
  encryptedPdf,
  labelledPdf,
  lyingCountPdf,
  pageTreeDagPdf,
  pageTreeLoopPdf,
  truncatedPdf,
  writeFixture,
  zeroPagePdf,
} from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalError } from '../../errors.js';
import { detectTools } from '../tools.js';
import { countPagesTogether, type QpdfRun, verifyQpdfOutput } from './run-qpdf.js';

const { qpdf } = await detectTools();
if (qpdf === undefined) console.warn('qpdf is not installed: the qpdf run tests are skipped');

// qpdf once exited 0 after writing a truncated file on a full disk: the check after every
// run must catch an output that is cut short or has the wrong number of pages.
describe.skipIf(qpdf === undefined)('verifyQpdfOutput', () => {
  let dir: string;
  let run: QpdfRun;
  let whole: Uint8Array;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdn-run-qpdf-'));
    run = { qpdf: qpdf as NonNullable<typeof qpdf>, cwd: dir, timeoutMs: 60_000 };
    whole = await labelledPdf('V', 3);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('accepts an output with the expected page count', async () => {
    await expect(
      verifyQpdfOutput(await writeFixture(dir, 'whole.pdf', whole), 3, run),
    ).resolves.toBeUndefined();
  });

  it('refuses an output with another page count', async () => {
    const path = await writeFixture(dir, 'whole.pdf', whole);
    await expect(verifyQpdfOutput(path, 4, run)).rejects.toThrow(
      new InternalError(`qpdf output ${path} has 3 pages, expected 4`),
    );
  });

  it('refuses an output whose /Count disagrees with its pages', async () => {
    const path = await writeFixture(dir, 'lying.pdf', lyingCountPdf(3, 1));
    await expect(verifyQpdfOutput(path, 3, run)).rejects.toBeInstanceOf(InternalError);
  });

  it('refuses an output qpdf has to repair to read', async () => {
    const text = Buffer.from(whole).toString('latin1');
    const broken = text.replace(/startxref\s+\d+/, 'startxref\n7');
    const path = await writeFixture(dir, 'repaired.pdf', Buffer.from(broken, 'latin1'));
    await expect(verifyQpdfOutput(path, 3, run)).rejects.toThrow(/does not open without repair: exit 3/);
  });

  it.each([0.9, 0.5, 0.1])('refuses an output cut to %s of its length', async (fraction) => {
    const path = await writeFixture(
      dir,
      `cut-${fraction}.pdf`,
      whole.subarray(0, Math.floor(whole.length * fraction)),
    );
    await expect(verifyQpdfOutput(path, 3, run)).rejects.toBeInstanceOf(InternalError);
  });
});

// Merge counts its inputs' pages in one qpdf run (as the merge bench measured); inspection relies on the run
// failing for every file a walk alone refuses, so that walking each then names it.
describe.skipIf(qpdf === undefined)('countPagesTogether', () => {
  let dir: string;
  let run: QpdfRun;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdn-count-together-'));
    run = { qpdf: qpdf as NonNullable<typeof qpdf>, cwd: dir, timeoutMs: 60_000 };
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const write = async (name: string, bytes: Uint8Array | Promise<Uint8Array>) =>
    writeFixture(dir, `${name.replaceAll(/\W/g, '-')}.pdf`, await bytes);

  it('counts the pages in the trees, not the /Count the files claim, and writes nothing', async () => {
    const files = [
      await write('two', labelledPdf('A', 2)),
      await write('liar', lyingCountPdf(3, 1)),
      await write('huge claim', lyingCountPdf(1, 9_999_999_999)),
    ];
    await expect(countPagesTogether(files, run)).resolves.toBe(6);
    expect(await readdir(dir)).toHaveLength(files.length);
  });

  // [name, bytes]: each beside a good file, which must not hide it.
  const unreadable: [string, () => Uint8Array | Promise<Uint8Array>][] = [
    ['a file without pages', zeroPagePdf],
    ['a page tree with a loop', pageTreeLoopPdf],
    ['a page tree listing a node twice', () => pageTreeDagPdf(40)],
    ['a page tree nested 100,000 deep (qpdf crashes)', () => deepPageTreePdf(100_000)],
    ['a password-encrypted file', encryptedPdf],
    ['a truncated file', truncatedPdf],
  ];
  it.each(unreadable)('gives no count for %s', async (name, bytes) => {
    const files = [await write('good', labelledPdf('G', 1)), await write(name, bytes())];
    await expect(countPagesTogether(files, run)).resolves.toBeUndefined();
  });
});
