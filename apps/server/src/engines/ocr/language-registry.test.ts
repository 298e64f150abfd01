import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../errors.js';
import { LanguageRegistry, loadLanguageRegistry } from './language-registry.js';
import { traineddataProblem } from './traineddata-file.js';

/** A traineddata table of contents: `offsets[i]` for component i, -1 when absent, then `body` bytes. */
function traineddata(offsets: readonly number[], size: number): Buffer {
  const b = Buffer.alloc(Math.max(size, 4 + offsets.length * 8));
  b.writeUInt32LE(offsets.length, 0);
  offsets.forEach((offset, i) => {
    b.writeBigInt64LE(BigInt(offset), 4 + i * 8);
  });
  return b;
}
const HEADER = 4 + 24 * 8;
const absent = (n: number) => Array.from({ length: n }, () => -1);
/** An LSTM-only file laid out like tessdata_best_int's: components 17-23 present. */
const lstmOffsets = [
  ...absent(17),
  HEADER,
  HEADER + 10,
  HEADER + 20,
  HEADER + 30,
  HEADER + 40,
  HEADER + 50,
  HEADER + 60,
];

const DEBIAN_TESSDATA = '/usr/share/tesseract-ocr/5/tessdata';
const debianRus = join(DEBIAN_TESSDATA, 'rus.traineddata');
const hasDebianRus = existsSync(debianRus);
if (!hasDebianRus)
  console.warn(`${debianRus} is absent (apt-get install tesseract-ocr-rus): real-file checks skipped`);

const log = { info: () => {}, warn: () => {} };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-languages-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('traineddataProblem', () => {
  const cases: [string, { given: Buffer; want: RegExp | undefined }][] = [
    ['an LSTM traineddata file', { given: traineddata(lstmOffsets, HEADER + 100), want: undefined }],
    ['an empty file', { given: Buffer.alloc(0), want: /too short/ }],
    ['text', { given: Buffer.from('this is not a model, just some words'), want: /not traineddata/ }],
    ['a table cut short', { given: traineddata(lstmOffsets, HEADER).subarray(0, 100), want: /truncated/ }],
    [
      'offsets past the end (a truncated file)',
      { given: traineddata(lstmOffsets, HEADER + 30), want: /outside the file/ },
    ],
    [
      'offsets going backwards',
      { given: traineddata([...absent(17), HEADER + 50, HEADER], HEADER + 100), want: /outside/ },
    ],
    [
      'a legacy-only file such as osd',
      { given: traineddata([-1, HEADER, ...absent(9)], HEADER + 100), want: /no LSTM model/ },
    ],
  ];
  it.each(cases)('judges %s', async (_name, { given, want }) => {
    const path = join(dir, `${Math.random().toString(36).slice(2)}.traineddata`);
    await writeFile(path, given);
    const problem = await traineddataProblem(path);
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });

  it.skipIf(!hasDebianRus)("accepts Debian's rus.traineddata", async () => {
    expect(await traineddataProblem(debianRus)).toBeUndefined();
  });
});

describe('LanguageRegistry.select', () => {
  const registry = new LanguageRegistry(
    ['eng', 'deu', 'chi_sim', 'fra', 'spa', 'ita', 'por'].map((code) => ({
      code,
      source: 'bundled' as const,
      file: `/data/${code}`,
    })),
  );

  const accepted: [string, { given: string; want: string[] }][] = [
    ['one code', { given: 'eng', want: ['eng'] }],
    ['a combination', { given: 'deu+eng', want: ['deu', 'eng'] }],
    ['a combination in another order, sorted', { given: 'eng+deu', want: ['deu', 'eng'] }],
    ['a repeated code, once', { given: 'eng+deu+eng', want: ['deu', 'eng'] }],
    ['a code with an underscore', { given: 'eng+chi_sim', want: ['chi_sim', 'eng'] }],
    [
      'five codes, the most a request may name',
      { given: 'spa+fra+ita+deu+eng', want: ['deu', 'eng', 'fra', 'ita', 'spa'] },
    ],
    [
      'five codes and a repeat',
      { given: 'spa+fra+ita+deu+eng+spa', want: ['deu', 'eng', 'fra', 'ita', 'spa'] },
    ],
  ];
  it.each(accepted)('accepts %s', (_name, { given, want }) => {
    expect(registry.select(given).map((language) => language.code)).toEqual(want);
  });

  const refused: [string, { given: string; want: RegExp }][] = [
    ['an unknown code', { given: 'xyz', want: /unknown OCR language "xyz": GET \/api\/v1\/languages lists/ }],
    ['an unknown code in a combination', { given: 'eng+klingon', want: /unknown OCR language "klingon"/ }],
    ['an empty field', { given: '', want: /not a language code/ }],
    ['a trailing plus', { given: 'eng+', want: /not a language code/ }],
    ['upper case', { given: 'ENG', want: /not a language code/ }],
    ['a path', { given: '../eng', want: /not a language code/ }],
    ['six codes', { given: 'spa+fra+ita+deu+eng+por', want: /names 6 languages: at most 5 per request/ }],
  ];
  it.each(refused)('refuses %s', (_name, { given, want }) => {
    expect(() => registry.select(given)).toThrow(InvalidInputError);
    expect(() => registry.select(given)).toThrow(want);
  });
});

describe('loadLanguageRegistry', () => {
  const required = [
    'eng',
    'deu',
    'fra',
    'spa',
    'ita',
    'por',
    'nld',
    'pol',
    'ukr',
    'tur',
    'ces',
    'swe',
    'dan',
  ];
  const alsoRequired = [
    'fin',
    'nor',
    'hun',
    'ron',
    'ell',
    'ara',
    'heb',
    'hin',
    'vie',
    'ind',
    'jpn',
    'chi_sim',
    'kor',
  ];

  it('lists every bundled npm language, sorted, as bundled', async () => {
    const registry = await loadLanguageRegistry({ log });
    const listed = registry.list();
    expect(listed.map((language) => language.code)).toEqual(
      [...required, ...alsoRequired].sort((a, b) => a.localeCompare(b)),
    );
    expect(new Set(listed.map((language) => language.source))).toEqual(new Set(['bundled']));
  });

  it('adds the usable .traineddata files of PDN_TESSDATA_DIR as system languages', async () => {
    const tessdata = await mkdtemp(join(dir, 'tessdata-'));
    await writeFile(join(tessdata, 'xyz.traineddata'), traineddata(lstmOffsets, HEADER + 100));
    await writeFile(join(tessdata, 'osd.traineddata'), traineddata([-1, HEADER, ...absent(9)], HEADER + 100));
    await writeFile(join(tessdata, 'bad.traineddata'), 'garbage');
    await writeFile(join(tessdata, 'README.txt'), 'not a language');
    // Already bundled: the npm data stays the one used.
    await writeFile(join(tessdata, 'eng.traineddata'), traineddata(lstmOffsets, HEADER + 100));
    const warnings: unknown[] = [];
    const registry = await loadLanguageRegistry({
      tessdataDir: tessdata,
      log: { info: () => {}, warn: (_message, fields) => warnings.push(fields) },
    });
    const listed = registry.list();
    expect(listed).toContainEqual({ code: 'xyz', source: 'system' });
    expect(listed).toContainEqual({ code: 'eng', source: 'bundled' });
    expect(listed.map((language) => language.code)).not.toContain('osd');
    expect(listed.map((language) => language.code)).not.toContain('bad');
    expect(registry.select('xyz')[0]?.file).toBe(join(tessdata, 'xyz.traineddata'));
    // bad.traineddata only: osd is told at info, being no language.
    expect(warnings).toEqual([expect.objectContaining({ file: join(tessdata, 'bad.traineddata') })]);
  });

  it('fails the start-up when PDN_TESSDATA_DIR cannot be read', async () => {
    await expect(loadLanguageRegistry({ tessdataDir: join(dir, 'missing'), log })).rejects.toThrow(
      /PDN_TESSDATA_DIR .*missing cannot be read/,
    );
  });

  it.skipIf(!hasDebianRus)("offers Debian's rus from its tessdata folder, skipping osd", async () => {
    const registry = await loadLanguageRegistry({ tessdataDir: DEBIAN_TESSDATA, log });
    const listed = registry.list();
    expect(listed).toContainEqual({ code: 'rus', source: 'system' });
    expect(listed).toContainEqual({ code: 'eng', source: 'bundled' });
    expect(listed.map((language) => language.code)).not.toContain('osd');
  });
});
