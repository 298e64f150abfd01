// Office to PDF with the real LibreOffice where it is installed: documents written by Word, Excel and
// LibreOffice recognised by their bytes and converted in warm instances that are recycled, a budget
// that runs out killing the instance, and, without the tools, the 501 that names them.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OFFICE_ASSETS, OFFICE_SAMPLES, writeFixture, zipBombDocx } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConverterUnavailableError, InvalidInputError } from '../../errors.js';
import { convertersOf } from '../converters.js';
import { CpuSlots } from '../cpu-slots.js';
import { detectTools } from '../tools.js';
import { createOfficePdfEngine } from './index.js';
import type { OfficeBudget, OfficePdfEngine, OfficeRequest } from './types.js';

const tools = await detectTools();
const installed = convertersOf(tools).office.available;
if (!installed) console.warn('LibreOffice or python3-uno is not installed: the conversion tests are skipped');

const quiet = { info: () => {}, warn: () => {} };
const PLAIN: OfficeRequest = { landscape: false, pdfua: false, bookmarks: true };
const BUDGET: OfficeBudget = {
  seconds: 60,
  memoryBytes: 1024 * 2 ** 20,
  maxPages: 100,
  holder: 'the Free plan',
};

let dir: string;
const folders = {
  create: (prefix: string) => mkdtemp(join(dir, prefix)),
  remove: (folder: string) => rm(folder, { recursive: true, force: true }),
};
const job = () => ({ workDir: dir, signal: new AbortController().signal });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-office-pdf-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('Office to PDF without LibreOffice', () => {
  it('answers 501 converter_unavailable before reading the document', async () => {
    const engine = createOfficePdfEngine({
      tools: {},
      cpuSlots: new CpuSlots(1),
      folders,
      maxMemoryBytes: 2 ** 30,
      timeoutMs: 30_000,
      log: quiet,
    });
    const input = { path: join(OFFICE_ASSETS, 'word-2007-sample.docx'), label: '"sample.docx"' };
    await expect(engine.toPdf(input, PLAIN, BUDGET, job())).rejects.toBeInstanceOf(ConverterUnavailableError);
    await engine.close();
  });
});

describe.skipIf(!installed)('Office to PDF with LibreOffice', () => {
  let engine: OfficePdfEngine;

  beforeAll(() => {
    engine = createOfficePdfEngine({
      tools,
      cpuSlots: new CpuSlots(1),
      folders,
      maxMemoryBytes: 2 * 2 ** 30,
      recycleAfter: 2,
      timeoutMs: 30_000,
      log: quiet,
    });
  });
  afterAll(() => engine?.close());

  it.each(OFFICE_SAMPLES.map((sample) => [sample.file, sample] as const))(
    'converts %s',
    async (file, sample) => {
      const input = { path: join(OFFICE_ASSETS, file), label: `"${file}"` };
      const output = await engine.toPdf(input, PLAIN, BUDGET, job());
      expect(output.format).toBe(sample.format);
      expect(output.pageCount).toBeGreaterThanOrEqual(sample.pages);
      expect((await readFile(output.path)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    },
    120_000,
  );

  it('refuses a file that is no Office document, naming it', async () => {
    const input = { path: join(OFFICE_ASSETS, 'SOURCES.md'), label: '"notes.docx"' };
    await expect(engine.toPdf(input, PLAIN, BUDGET, job())).rejects.toThrow(
      /"notes.docx" is not a Word, Excel or PowerPoint document/,
    );
  });

  it('stops a document past its time, names the budget, and converts the next in a new instance', async () => {
    const bomb = await writeFixture(dir, 'bomb.docx', zipBombDocx());
    const tight = { ...BUDGET, seconds: 5 };
    const refusal = engine.toPdf({ path: bomb, label: '"bomb.docx"' }, PLAIN, tight, job());
    await expect(refusal).rejects.toBeInstanceOf(InvalidInputError);
    await expect(refusal).rejects.toThrow(/the Free plan's (time|memory) for a conversion/);
    const input = { path: join(OFFICE_ASSETS, 'word-2007-sample.docx'), label: '"sample.docx"' };
    expect((await engine.toPdf(input, PLAIN, BUDGET, job())).pageCount).toBe(2);
  }, 120_000);
});
