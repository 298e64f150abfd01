// PDF to images through the SDK: `pdn.pdfToImages` sends its options as the contract's form fields,
// checks them before sending, and answers the typed result with a download per page.
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import { InvalidInputError, type PdfToImagesParams, type PdfToImagesResult } from '../src/index.js';
import { baseUrl, client, download, ok, sent, server, useMsw } from './msw.js';

useMsw();

const report = new File(['%PDF-1.7 report'], 'report.pdf', { type: 'application/pdf' });

const data: Omit<PdfToImagesResult, 'requestId' | 'rateLimit'> = {
  format: 'png',
  output: 'files',
  page_count: 1,
  pages: [
    { page: 2, width: 1275, height: 1650, filename: 'report.page-2.png', size: 1000, download: download() },
  ],
};

type Field = { name: string; value: string } | { name: string; filename: string; type: string };

function receive(): Field[][] {
  const bodies: Field[][] = [];
  server.use(
    http.post(`${baseUrl}/api/v1/pdf-to-images`, async ({ request }) => {
      const fields: Field[] = [];
      for (const [name, value] of await request.formData()) {
        fields.push(
          typeof value === 'string' ? { name, value } : { name, filename: value.name, type: value.type },
        );
      }
      bodies.push(fields);
      return ok(data);
    }),
  );
  return bodies;
}

describe('pdfToImages', () => {
  it.each<[string, Omit<PdfToImagesParams, 'file'>, Array<[string, string]>]>([
    ['only the file when no option is given (the server’s defaults)', {}, []],
    [
      'every option as the contract’s field',
      { pages: ['1-3', '7'], format: 'jpeg', quality: 70, width: 200, output: 'zip' },
      [
        ['pages', '1-3,7'],
        ['format', 'jpeg'],
        ['quality', '70'],
        ['width', '200'],
        ['output', 'zip'],
      ],
    ],
    ['a resolution', { dpi: 300 }, [['dpi', '300']]],
  ])('sends %s', async (_name, params, want) => {
    const bodies = receive();
    await client().pdfToImages({ file: report, ...params });
    expect(bodies).toEqual([
      [
        { name: 'file', filename: 'report.pdf', type: 'application/pdf' },
        ...want.map(([name, value]) => ({ name, value })),
      ],
    ]);
  });

  it('answers the server’s data, typed, with the request id beside it', async () => {
    receive();
    const result = await client().pdfToImages({ file: report, pages: '2' });
    expect(JSON.parse(JSON.stringify(result))).toEqual(data);
    expect(result.pages[0]?.download?.url).toBe(data.pages[0]?.download?.url);
  });

  it.each<[string, Partial<PdfToImagesParams>, RegExp]>([
    ['an unknown format', { format: 'gif' as never }, /format must be one of png, jpeg/],
    ['an unknown output', { output: 'tar' as never }, /output must be one of files, zip/],
    ['a quality of 0', { quality: 0 }, /quality must be a whole number from 1 to 100/],
    ['a fractional dpi', { dpi: 72.5 }, /dpi must be a whole number from 10 to 1200/],
    ['a width as text', { width: '200' as never }, /width must be a whole number from 16 to 10000/],
    ['empty pages', { pages: '' }, /pages when given must be/],
  ])('refuses %s before sending', async (_name, params, message) => {
    const error = await client()
      .pdfToImages({ file: report, ...params })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(message);
    expect(sent).toHaveLength(0);
  });
});
