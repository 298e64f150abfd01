// OCR of documents through the SDK: `pdn.ocrPdf` sends its options as the contract's form
// fields and answers the typed result with its two downloads (the PDF, and the text served as
// text/plain); `pdn.ocr` with `detail: 'words'`; `pdn.jobs.submit('ocr_pdf')` and progress in pages.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpResponse, http } from 'msw';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError, type Job, type OcrPdfParams, type OcrPdfResult, type Pdn } from '../src/index.js';
import { baseUrl, client, download, ok, rateLimitHeaders, sent, server, useMsw } from './msw.js';

useMsw();

const scan = new File(['%PDF-1.7 scan'], 'letter.pdf', { type: 'application/pdf' });

const ocrPdfData: Omit<OcrPdfResult, 'requestId' | 'rateLimit'> = {
  filename: 'letter.ocr.pdf',
  text_filename: 'letter.ocr.txt',
  method: 'tesseract',
  output: 'pdf',
  language: 'eng',
  page_count: 2,
  pages_ocred: 1,
  pages_skipped: 1,
  pages: [
    { page: 1, status: 'ocred', confidence: 93.5 },
    { page: 2, status: 'skipped', confidence: null },
  ],
  size: 4096,
  text: 'Dear reader,\n\f',
  text_truncated: false,
  download: download({ url: '/api/get-pdf.php?file=pdf1&exp=1800000000&sig=abc' }),
  text_download: download({ url: '/api/get-pdf.php?file=txt1&exp=1800000000&sig=def' }),
};

type Field = { name: string; value: string } | { name: string; filename: string; type: string };

/** The form fields of each request to `path`, as a server parses them; answers `answer`. */
function receive(path: string, answer: () => Response = () => ok(ocrPdfData)): Field[][] {
  const bodies: Field[][] = [];
  server.use(
    http.post(`${baseUrl}${path}`, async ({ request }) => {
      const fields: Field[] = [];
      for (const [name, value] of await request.formData()) {
        fields.push(
          typeof value === 'string' ? { name, value } : { name, filename: value.name, type: value.type },
        );
      }
      bodies.push(fields);
      return answer();
    }),
  );
  return bodies;
}

describe('ocrPdf', () => {
  const sends: Array<[string, { params: Omit<OcrPdfParams, 'file'>; want: Array<[string, string]> }]> = [
    ['nothing but the file when no option is given (the server’s defaults)', { params: {}, want: [] }],
    [
      'every option as the contract’s field',
      {
        params: {
          language: ' deu+eng ',
          mode: 'force',
          deskew: true,
          rotate: false,
          pages: ['1-3', '7'],
          output: 'pdfa',
        },
        want: [
          ['language', 'deu+eng'],
          ['mode', 'force'],
          ['deskew', 'true'],
          ['rotate', 'false'],
          ['pages', '1-3,7'],
          ['output', 'pdfa'],
        ],
      },
    ],
    ['pages as one string, as it is', { params: { pages: '2-4, 6' }, want: [['pages', '2-4, 6']] }],
  ];
  it.each(sends)('sends %s', async (_name, { params, want }) => {
    const bodies = receive('/api/v1/ocr/pdf');
    await client().ocrPdf({ file: scan, ...params });
    expect(bodies).toEqual([
      [
        { name: 'file', filename: 'letter.pdf', type: 'application/pdf' },
        ...want.map(([name, value]) => ({ name, value })),
      ],
    ]);
  });

  it('names bytes without a name `document`, typed by neither PDF nor image (the server reads them)', async () => {
    const bodies = receive('/api/v1/ocr/pdf');
    await client().ocrPdf({ file: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) });
    expect(bodies[0]?.[0]).toEqual({ name: 'file', filename: 'document', type: 'application/octet-stream' });
  });

  it('answers the server’s data, typed, with the request id beside it', async () => {
    receive('/api/v1/ocr/pdf');
    const result = await client().ocrPdf({ file: scan });
    expect(JSON.parse(JSON.stringify(result))).toEqual(ocrPdfData);
    expect(result.requestId).toBe('req_ok');
    const confidences: Array<number | null> = result.pages.map((page) => page.confidence);
    expect(confidences).toEqual([93.5, null]);
  });

  const refused: Array<[string, { params: Partial<OcrPdfParams>; message: RegExp }]> = [
    ['no file', { params: { file: undefined as never }, message: /file is required/ }],
    [
      'an unknown mode',
      { params: { mode: 'all' as never }, message: /mode must be one of skip, redo, force/ },
    ],
    [
      'an unknown output',
      { params: { output: 'pdfx' as never }, message: /output must be one of pdf, pdfa/ },
    ],
    ['deskew as a string', { params: { deskew: 'yes' as never }, message: /deskew must be true or false/ }],
    ['rotate as a string', { params: { rotate: 'true' as never }, message: /rotate must be true or false/ }],
    ['empty pages', { params: { pages: ' ' }, message: /pages when given must be/ }],
    ['an empty pages list', { params: { pages: [] }, message: /pages when given must be/ }],
    ['an empty language', { params: { language: '' }, message: /language must be/ }],
  ];
  it.each(refused)('refuses %s before sending', async (_name, { params, message }) => {
    const error = await client()
      .ocrPdf({ file: scan, ...params })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ status: undefined, message: expect.stringMatching(message) });
    expect(sent).toHaveLength(0);
  });
});

describe('both outputs with the download helpers', () => {
  const pdfBytes = new TextEncoder().encode('%PDF-1.7 searchable %%EOF');
  const text = 'Dear reader,\n\f';
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdn-sdk-ocr-pdf-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('downloads the PDF and the text (served as text/plain) to bytes, files and streams', async () => {
    receive('/api/v1/ocr/pdf');
    server.use(
      http.get(`${baseUrl}/api/get-pdf.php`, ({ request }) =>
        new URL(request.url).searchParams.get('file') === 'txt1'
          ? new HttpResponse(text, { headers: { 'content-type': 'text/plain; charset=utf-8' } })
          : new HttpResponse(pdfBytes, { headers: { 'content-type': 'application/pdf' } }),
      ),
    );
    const pdn: Pdn = client();
    const result = await pdn.ocrPdf({ file: scan });
    const pdfPath = await pdn.download(result.download, join(dir, result.filename));
    const textPath = await pdn.download(result.text_download, join(dir, result.text_filename));
    expect(await readFile(pdfPath)).toEqual(Buffer.from(pdfBytes));
    expect(await readFile(textPath, 'utf8')).toBe(text);
    expect(new TextDecoder().decode(await pdn.download(result.text_download))).toBe(text);
    const stream = await pdn.downloadStream(result.text_download);
    expect(await new Response(stream).text()).toBe(text);
  });
});

describe('ocr with detail', () => {
  const words = [{ text: 'Dear', confidence: 96, page: 1, left: 10, top: 20, width: 40, height: 12 }];

  it("detail: 'words' is sent and the words come back typed", async () => {
    const bodies = receive('/api/v1/ocr', () => ok({ text: 'Dear', language: 'eng', confidence: 96, words }));
    const result = await client().ocr({ image: Buffer.from('png'), detail: 'words' });
    // Typed as always present with detail: 'words' (no `?.`).
    expect(result.words[0]).toEqual(words[0]);
    expect(bodies[0]?.slice(1)).toEqual([{ name: 'detail', value: 'words' }]);
  });

  it('an unknown detail is refused before sending', async () => {
    await expect(client().ocr({ image: Buffer.from('png'), detail: 'hocr' as never })).rejects.toThrow(
      /detail must be one of text, words/,
    );
    expect(sent).toHaveLength(0);
  });
});

describe("jobs.submit('ocr_pdf')", () => {
  const id = 'job_T2NyUGRmMDAxYQ';
  const job = (overrides: Record<string, unknown>) => ({
    id,
    operation: 'ocr_pdf',
    status: 'running',
    attempts: 1,
    created_at: '2026-11-23T04:00:00.000Z',
    started_at: '2026-11-23T04:00:01.000Z',
    finished_at: null,
    retained_until: null,
    expired: false,
    poll_after_seconds: 0,
    ...overrides,
  });

  it('sends the same form with Prefer: respond-async, and wait reports pages to the result', async () => {
    const bodies = receive('/api/v1/ocr/pdf', () =>
      HttpResponse.json(
        {
          data: job({ status: 'queued', started_at: null, attempts: 0 }),
          meta: { request_id: 'req_submit' },
        },
        { status: 202, headers: { 'X-Request-Id': 'req_submit', ...rateLimitHeaders } },
      ),
    );
    const looks = [
      job({ progress: { done: 1, total: 3 } }),
      job({ progress: { done: 2, total: 3 } }),
      job({
        status: 'succeeded',
        progress: { done: 3, total: 3 },
        result: ocrPdfData,
        poll_after_seconds: null,
      }),
    ];
    let look = 0;
    server.use(
      http.get(`${baseUrl}/api/v1/jobs/${id}`, () => ok(looks[Math.min(look++, looks.length - 1)] ?? {})),
    );

    const pdn = client();
    const submitted: Job<'ocr_pdf'> = await pdn.jobs.submit('ocr_pdf', {
      file: scan,
      pages: '1-3',
      mode: 'redo',
    });
    expect(sent[0]?.headers.get('prefer')).toBe('respond-async');
    expect(bodies[0]?.slice(1)).toEqual([
      { name: 'mode', value: 'redo' },
      { name: 'pages', value: '1-3' },
    ]);
    const pages: string[] = [];
    const result: OcrPdfResult = await submitted.wait({
      onProgress: (seen) => seen.progress && pages.push(`${seen.progress.done}/${seen.progress.total}`),
    });
    expect(pages).toEqual(['1/3', '2/3', '3/3']);
    expect(JSON.parse(JSON.stringify(result))).toEqual(ocrPdfData);
    expect(result.text_download.url).toBe(ocrPdfData.text_download.url);
  });

  it('refuses what ocrPdf refuses, sending nothing', async () => {
    await expect(
      client().jobs.submit('ocr_pdf', { file: scan, output: 'tiff' as never }),
    ).rejects.toBeInstanceOf(InvalidInputError);
    expect(sent).toHaveLength(0);
  });
});
