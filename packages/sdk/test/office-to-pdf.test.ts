// Office to PDF through the SDK: `pdn.officeToPdf` sends the document as the part `file` and its options
// as the contract's form fields, checks them before sending, answers the typed result, and rejects a
// server without LibreOffice's 501 as a ConverterUnavailableError at once, without retrying it;
// `pdn.jobs.submit('office_to_pdf')` sends the same request.
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  ConverterUnavailableError,
  InvalidInputError,
  type OfficeToPdfParams,
  type OfficeToPdfResult,
} from '../src/index.js';
import { baseUrl, client, download, ok, sent, server, useMsw } from './msw.js';

useMsw();

const report = new File([new Uint8Array([0x50, 0x4b, 0x03, 0x04])], 'report.docx', {
  type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
});

const data: Omit<OfficeToPdfResult, 'requestId' | 'rateLimit'> = {
  filename: 'report.pdf',
  format: 'docx',
  page_count: 3,
  pdfa: null,
  size: 4096,
  download: download(),
};

type Field = { name: string; value: string } | { name: string; filename: string; type: string };

function receive(answer: () => Response = () => ok(data)): Field[][] {
  const bodies: Field[][] = [];
  server.use(
    http.post(`${baseUrl}/api/v1/office-to-pdf`, async ({ request }) => {
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

describe('officeToPdf', () => {
  it.each<[string, Omit<OfficeToPdfParams, 'file'>, Array<[string, string]>]>([
    ['only the document when no option is given (the server’s defaults)', {}, []],
    [
      'every option as the contract’s field',
      { pages: ['1-3', '7'], landscape: true, pdfa: 'pdfa-2b', pdfua: true, bookmarks: false },
      [
        ['pages', '1-3,7'],
        ['landscape', 'true'],
        ['pdfa', 'pdfa-2b'],
        ['pdfua', 'true'],
        ['bookmarks', 'false'],
      ],
    ],
  ])('sends %s', async (_name, params, want) => {
    const bodies = receive();
    await client().officeToPdf({ file: report, ...params });
    expect(bodies).toEqual([
      [
        {
          name: 'file',
          filename: 'report.docx',
          type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        },
        ...want.map(([name, value]) => ({ name, value })),
      ],
    ]);
  });

  it('names bytes without a name as a document, typed by no format (the server reads them)', async () => {
    const bodies = receive();
    await client().officeToPdf({ file: new Uint8Array([1, 2]) });
    expect(bodies[0]).toEqual([{ name: 'file', filename: 'document', type: 'application/octet-stream' }]);
  });

  it('answers the server’s data, typed, with the request id beside it', async () => {
    receive();
    const result = await client().officeToPdf({ file: report });
    expect(JSON.parse(JSON.stringify(result))).toEqual(data);
    expect(result.requestId).toBe('req_ok');
  });

  it.each<[string, Partial<OfficeToPdfParams>, RegExp]>([
    ['an unknown PDF/A level', { pdfa: 'pdfa-4' as never }, /pdfa must be one of pdfa-1b, pdfa-2b, pdfa-3b/],
    ['landscape as text', { landscape: 'yes' as never }, /landscape must be true or false/],
    ['an empty page range', { pages: [] }, /pages/],
  ])('refuses %s before sending', async (_name, params, message) => {
    const error = await client()
      .officeToPdf({ file: report, ...params })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(message);
    expect(sent).toHaveLength(0);
  });

  it('rejects a server without LibreOffice at once, without retrying', async () => {
    const message =
      'Office to PDF needs LibreOffice (soffice, with the Python UNO bridge python3-uno), which is not installed on this server; GET /healthz lists the converters it has.';
    const bodies = receive(() =>
      HttpResponse.json(
        { error: { code: 'converter_unavailable', message }, meta: { request_id: 'req_501' } },
        { status: 501 },
      ),
    );
    const error = await client()
      .officeToPdf({ file: report })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConverterUnavailableError);
    expect(error).toMatchObject({
      status: 501,
      code: 'converter_unavailable',
      message,
      requestId: 'req_501',
    });
    expect(bodies).toHaveLength(1);
  });

  it('is submitted as a job with the same request', async () => {
    const bodies = receive(() =>
      HttpResponse.json(
        {
          data: {
            id: 'job_Q2xvdWRDb252ZXJ0MDAxYQ',
            operation: 'office_to_pdf',
            status: 'queued',
            attempts: 0,
            created_at: '2026-01-01T00:00:00.000Z',
            started_at: null,
            finished_at: null,
            retained_until: null,
            expired: false,
            poll_after_seconds: 1,
          },
          meta: { request_id: 'req_job' },
        },
        { status: 202 },
      ),
    );
    const job = await client().jobs.submit('office_to_pdf', { file: report, pdfa: 'pdfa-1b' });
    expect(job.operation).toBe('office_to_pdf');
    expect(bodies[0]).toEqual([
      {
        name: 'file',
        filename: 'report.docx',
        type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      },
      { name: 'pdfa', value: 'pdfa-1b' },
    ]);
  });
});
