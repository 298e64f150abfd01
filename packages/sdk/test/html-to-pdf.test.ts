// HTML to PDF through the SDK: `pdn.htmlToPdf` sends the page as `html`, each asset as `assets[]`
// under the path the page uses for it (whatever the upload was called), the print options as the
// contract's fields, checks them before sending, and answers the typed result.
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  ConverterUnavailableError,
  type HtmlToPdfParams,
  type HtmlToPdfResult,
  InvalidInputError,
} from '../src/index.js';
import { baseUrl, client, download, ok, sent, server, useMsw } from './msw.js';

useMsw();

const report = new File(['<h1>Report</h1>'], 'report.html', { type: 'text/html' });

const data: Omit<HtmlToPdfResult, 'requestId' | 'rateLimit'> = {
  filename: 'report.pdf',
  page_count: 2,
  paper_size: 'a4',
  landscape: false,
  asset_count: 1,
  blocked_urls: [],
  size: 1000,
  download: download(),
};

type Field = { name: string; value: string } | { name: string; filename: string; type: string };

function receive(): Field[][] {
  const bodies: Field[][] = [];
  server.use(
    http.post(`${baseUrl}/api/v1/html-to-pdf`, async ({ request }) => {
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

describe('htmlToPdf', () => {
  it.each<[string, Omit<HtmlToPdfParams, 'html'>, Field[]]>([
    ['only the page when no option is given (the server’s defaults)', {}, []],
    [
      'assets under their paths on the page, whatever their own names',
      {
        assets: {
          'css/site.css': new File(['p {}'], 'site.css', { type: 'text/css' }),
          'img/a.png': new Uint8Array([1]),
        },
      },
      [
        { name: 'assets[]', filename: 'css/site.css', type: 'text/css' },
        { name: 'assets[]', filename: 'img/a.png', type: 'application/octet-stream' },
      ],
    ],
    [
      'every option as the contract’s field',
      {
        paperSize: 'letter',
        landscape: true,
        marginMm: 12.5,
        printBackground: false,
        headerTemplate: '<span class="title"></span>',
        footerTemplate: '<span class="pageNumber"></span>',
        javascript: true,
        waitUntil: 'network_idle',
        waitFor: '#ready',
      },
      [
        { name: 'paper_size', value: 'letter' },
        { name: 'landscape', value: 'true' },
        { name: 'margin_mm', value: '12.5' },
        { name: 'print_background', value: 'false' },
        { name: 'header_template', value: '<span class="title"></span>' },
        { name: 'footer_template', value: '<span class="pageNumber"></span>' },
        { name: 'javascript', value: 'true' },
        { name: 'wait_until', value: 'network_idle' },
        { name: 'wait_for', value: '#ready' },
      ],
    ],
  ])('sends %s', async (_name, params, want) => {
    const bodies = receive();
    await client().htmlToPdf({ html: report, ...params });
    expect(bodies).toEqual([[{ name: 'html', filename: 'report.html', type: 'text/html' }, ...want]]);
  });

  it('answers the server’s data, typed, with the request id beside it', async () => {
    receive();
    const result = await client().htmlToPdf({ html: report });
    expect(JSON.parse(JSON.stringify(result))).toEqual(data);
    expect(result.download.url).toBe(data.download.url);
  });

  it('gives a server without Chromium as ConverterUnavailableError, not retried', async () => {
    let calls = 0;
    server.use(
      http.post(`${baseUrl}/api/v1/html-to-pdf`, () => {
        calls++;
        return Response.json(
          {
            error: {
              code: 'converter_unavailable',
              message: 'HTML to PDF needs Chromium, which is not installed on this server',
            },
            meta: { request_id: 'r-1' },
          },
          { status: 501 },
        );
      }),
    );
    const error = await client()
      .htmlToPdf({ html: report })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConverterUnavailableError);
    expect(calls).toBe(1);
  });

  it.each<[string, Partial<HtmlToPdfParams>, RegExp]>([
    [
      'an unknown paper',
      { paperSize: 'b5' as never },
      /paperSize must be one of a4, letter, legal, a3, a5, tabloid/,
    ],
    ['an unknown wait', { waitUntil: 'idle' as never }, /waitUntil must be one of load, network_idle/],
    ['a margin too wide', { marginMm: 51 }, /marginMm must be a number from 0 to 50/],
    [
      'too many assets',
      { assets: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`a${i}.css`, new Uint8Array()])) },
      /at most 50 assets, got 51/,
    ],
  ])('refuses %s before sending', async (_name, params, message) => {
    const error = await client()
      .htmlToPdf({ html: report, ...params })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(message);
    expect(sent).toHaveLength(0);
  });
});
