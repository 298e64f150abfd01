import { existsSync } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectTools, type ToolInfo } from '../tools.js';
import { meanWordConfidence, NativeTesseract } from './native-tesseract.js';

const HEADER =
  'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';
const row = (level: number, conf: number, text: string) =>
  `${level}\t1\t1\t1\t1\t1\t0\t0\t10\t10\t${conf}\t${text}`;

describe('meanWordConfidence', () => {
  const cases: [string, { given: string[]; want: number }][] = [
    ['no rows (no text found)', { given: [HEADER], want: 0 }],
    ['only layout rows', { given: [HEADER, row(1, -1, ''), row(4, -1, '')], want: 0 }],
    [
      'the mean of the word rows, rounded',
      { given: [HEADER, row(2, -1, ''), row(5, 96.5, 'The'), row(5, 90, 'fox')], want: 93 },
    ],
    ['words without text left out', { given: [HEADER, row(5, 95, 'ok'), row(5, 0, ' ')], want: 95 }],
    ['a trailing newline', { given: [HEADER, row(5, 80, 'word'), ''], want: 80 }],
  ];
  it.each(cases)('reads %s', (_name, { given, want }) => {
    expect(meanWordConfidence(given.join('\n'))).toBe(want);
  });
});

describe('NativeTesseract.start', async () => {
  const { tesseract } = await detectTools();
  const quiet = { info: () => {}, warn: () => {} };
  /** The binary's own tessdata folder, when it has osd.traineddata to leave out. */
  const systemData =
    tesseract === undefined
      ? undefined
      : (await NativeTesseract.start(tesseract, undefined, quiet)).tessdataDir;

  it.skipIf(systemData === undefined || !existsSync(join(systemData, 'osd.traineddata')))(
    'warns once at start when osd.traineddata is missing, and only then',
    async () => {
      const data = systemData as string;
      const withoutOsd = await mkdtemp(join(tmpdir(), 'pdn-tessdata-'));
      try {
        await symlink(join(data, 'eng.traineddata'), join(withoutOsd, 'eng.traineddata'));
        const warnings = async (tessdata: string) => {
          const warned: string[] = [];
          await NativeTesseract.start(tesseract as ToolInfo, tessdata, {
            ...quiet,
            warn: (message) => warned.push(message),
          });
          return warned;
        };
        expect(await warnings(withoutOsd)).toEqual([
          'OCR: no osd.traineddata, so rotate=true cannot detect page orientation',
        ]);
        expect(await warnings(data)).toEqual([]);
      } finally {
        await rm(withoutOsd, { recursive: true, force: true });
      }
    },
  );
});
