import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  autoRunMacroOdt,
  billionCellOds,
  fontOdt,
  OFFICE_ASSETS,
  OFFICE_SAMPLES,
  writeFixture,
  zipBombDocx,
} from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMALL_FILE_BYTES } from './byte-source.js';
import { recogniseDocument } from './office-format.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-office-format-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const at = (path: string) => ({ path, label: '"upload"' });

describe('recogniseDocument', () => {
  it.each(OFFICE_SAMPLES.map((sample) => [sample.file, sample.format] as const))(
    'reads %s as %s by its bytes',
    async (file, format) => {
      expect((await recogniseDocument(at(join(OFFICE_ASSETS, file)))).format).toBe(format);
    },
  );

  it.each([
    ['a zip bomb', 'bomb.docx', () => zipBombDocx(64), 'docx', 'MS Word 2007 XML'],
    ['a macro document', 'macro.odt', () => autoRunMacroOdt('/nowhere'), 'odt', 'writer8'],
    ['a sheet of billions of cells', 'huge.ods', () => billionCellOds(), 'ods', 'calc8'],
  ])(
    'reads %s as what it claims to be, for the budgets to judge',
    async (_name, file, make, format, filter) => {
      const path = await writeFixture(dir, file, make());
      expect(await recogniseDocument(at(path))).toMatchObject({ format, filter });
    },
  );

  // Past SMALL_FILE_BYTES a document is read where each reader looks, not whole.
  it.each([
    [
      'an ODT carrying a large font',
      'large.odt',
      async () => fontOdt('Noise', 'text', randomBytes(SMALL_FILE_BYTES + 1)),
      'odt',
    ],
    [
      'a DOC with unused sectors after its last',
      'large.doc',
      async () =>
        Buffer.concat([
          await readFile(join(OFFICE_ASSETS, 'word-97-sample.doc')),
          Buffer.alloc(SMALL_FILE_BYTES + 512),
        ]),
      'doc',
    ],
  ])('reads %s from the disk', async (_name, file, make, format) => {
    const path = await writeFixture(dir, file, await make());
    expect((await recogniseDocument(at(path))).format).toBe(format);
  });

  it.each([
    ['a PDF', '%PDF-1.7\n', /"upload" is not a Word, Excel or PowerPoint document/],
    ['plain text', 'hello', /"upload" is not a Word/],
    [
      'a ZIP cut short',
      'PK\x03\x04\x14\x00',
      /could not be read as an Office document: it has no end of central directory/,
    ],
    [
      'a compound file cut short',
      '\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1',
      /could not be read as an Office document: it is cut short/,
    ],
  ])('refuses %s, naming the file', async (_name, bytes, message) => {
    const path = await writeFixture(dir, 'upload', Buffer.from(bytes, 'latin1'));
    await expect(recogniseDocument(at(path))).rejects.toThrow(message);
  });
});
