import { describe, expect, it } from 'vitest';
import { readGhostscriptMessages } from './ghostscript-messages.js';

// [name, { given: what Ghostscript 10.00 printed (stdout and stderr), want: failure text or undefined }].
// The texts are copied from real runs and from Resource/Init/pdf_main.ps.
const table: [string, { given: string; want: string | undefined }][] = [
  ['silence', { given: '', want: undefined }],
  [
    "an input the new interpreter could not open (pdf.js's REDHAT-1531897-0.pdf)",
    {
      given:
        "   **** Error: Couldn't initialise file.\n               Output may be incorrect.\n" +
        'Requested FirstPage is greater than the number of pages in the file: 0\n' +
        '   No pages will be processed (FirstPage > LastPage).\n',
      want: "Error: Couldn't initialise file. Output may be incorrect.",
    },
  ],
  [
    "a page the new interpreter could not draw (OCRmyPDF's docinfo_latin1_key.pdf)",
    {
      given: 'Page 1\n   **** Error: Page drawing error occurred.\n               Output may be incorrect.\n',
      want: 'Error: Page drawing error occurred. Output may be incorrect.',
    },
  ],
  [
    'a page dropped entirely',
    {
      given:
        '   **** Error: Page drawing error occurred.\n' +
        '               Could not draw this page at all, page will be missing in the output.\n',
      want: 'Error: Page drawing error occurred. Could not draw this page at all, page will be missing in the output.',
    },
  ],
  [
    'the legacy interpreter on a content stream it could not read',
    {
      given: '   **** Error reading a content stream. The page may be incomplete.\n',
      want: 'Error reading a content stream. The page may be incomplete.',
    },
  ],
  [
    'the legacy interpreter guessing an image parameter',
    {
      given:
        '   **** Error: image has no /BitsPerComponent key; assuming 8 bit.\n               Output may be incorrect.\n',
      want: 'Error: image has no /BitsPerComponent key; assuming 8 bit. Output may be incorrect.',
    },
  ],
  [
    'a repaired file: a note, not a failure',
    {
      given:
        '\n   **** Warning: You are using the legacy PDF interpreter (-dNEWPDF=false) which is now deprecated and unsupported\n' +
        'The following errors were encountered at least once while processing this file:\n\terror reading a stream\n\n' +
        '   **** This file had errors that were repaired or ignored.\n',
      want: undefined,
    },
  ],
  [
    'a warning of the new interpreter on an image it cannot colour',
    {
      given: 'WARNING: pdfi_create_indexed() got 30 values, expected at least 768 values\n',
      want: undefined,
    },
  ],
];

describe('readGhostscriptMessages', () => {
  it.each(table)('%s', (_name, { given, want }) => {
    expect(readGhostscriptMessages(given).failure).toBe(want);
  });

  it('keeps what was said as notes, without the legacy interpreter banner', () => {
    const { notes } = readGhostscriptMessages(
      '   **** Warning: You are using the legacy PDF interpreter (-dNEWPDF=false) which is now deprecated and unsupported\n' +
        '   **** This file had errors that were repaired or ignored.\n',
    );
    expect(notes).toBe('**** This file had errors that were repaired or ignored.');
  });
});
