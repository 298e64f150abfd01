import { describe, expect, it } from 'vitest';
import { reportSkippedData } from './traineddata-file.js';

describe('reportSkippedData', () => {
  const table: Array<[string, { code: string; want: string }]> = [
    ["Debian's osd.traineddata, at info: it is no language", { code: 'osd', want: 'info' }],
    ['a language that cannot be used, as a warning', { code: 'xyz', want: 'warn' }],
  ];
  it.each(table)('%s', (_name, { code, want }) => {
    const lines: string[] = [];
    const log = { info: () => lines.push('info'), warn: () => lines.push('warn') };
    reportSkippedData(log, code, `/tessdata/${code}.traineddata`, 'it has no LSTM model');
    expect(lines).toEqual([want]);
  });
});
