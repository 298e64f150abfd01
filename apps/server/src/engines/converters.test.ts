import { describe, expect, it } from 'vitest';
import { ConverterUnavailableError } from '../errors.js';
import { convertersOf, requireConverter } from './converters.js';

const soffice = { path: '/usr/bin/soffice', version: '7.4.7.2' };
const pyuno = { path: '/usr/bin/python3', version: '3.11.2' };
const chromium = { path: '/usr/bin/chromium', version: '120.0.6099.224' };

describe('convertersOf', () => {
  it.each([
    [
      'no converter',
      {},
      {
        office: { available: false, tool: 'libreoffice', version: null },
        html: { available: false, tool: 'chromium', version: null },
      },
    ],
    [
      'LibreOffice without its UNO bridge',
      { libreoffice: soffice },
      {
        office: { available: false, tool: 'libreoffice', version: null },
        html: { available: false, tool: 'chromium', version: null },
      },
    ],
    [
      'LibreOffice with its UNO bridge',
      { libreoffice: soffice, pyuno },
      {
        office: { available: true, tool: 'libreoffice', version: '7.4.7.2' },
        html: { available: false, tool: 'chromium', version: null },
      },
    ],
    [
      'both',
      { libreoffice: soffice, pyuno, chromium },
      {
        office: { available: true, tool: 'libreoffice', version: '7.4.7.2' },
        html: { available: true, tool: 'chromium', version: '120.0.6099.224' },
      },
    ],
  ])('shows %s', (_name, tools, want) => {
    expect(convertersOf(tools)).toEqual(want);
  });
});

describe('requireConverter', () => {
  it('answers the converter’s tool where the tools are present', () => {
    expect(requireConverter({ libreoffice: soffice, pyuno }, 'office')).toBe(soffice);
    expect(requireConverter({ chromium }, 'html')).toBe(chromium);
  });

  it.each([
    [
      'office',
      {},
      /^Office to PDF needs LibreOffice \(soffice, with the Python UNO bridge python3-uno\), which/,
    ],
    ['office', { libreoffice: soffice }, /^Office to PDF needs LibreOffice/],
    [
      'html',
      { libreoffice: soffice, pyuno },
      /^HTML to PDF needs Chromium, which is not installed on this server/,
    ],
  ] as const)('refuses %s with 501 converter_unavailable naming the tool', (name, tools, message) => {
    const refusal = (() => {
      try {
        requireConverter(tools, name);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(ConverterUnavailableError);
    expect(refusal).toMatchObject({ status: 501, code: 'converter_unavailable', refusal: true });
    expect((refusal as Error).message).toMatch(message);
  });
});
