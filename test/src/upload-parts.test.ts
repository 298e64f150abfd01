// How parts are read and names given back: a file part with a filename but no Content-Type, Python
// requests' default, is a file; names with bidi and other format characters come back without them,
// in the JSON and in the download's Content-Disposition; a text field sent empty, as HTML forms and
// Swagger UI's "Try it out" send the fields left blank, reads as not sent (openapi.yaml, "Upload
// limits"), for the operation and for the Idempotency-Key alike.
import type { AccountResponse, CompressResponse, SplitResponse } from '@pdn/api-types';
import { labelledPdf } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { download } from './harness/download.js';
import { field, file, form } from './harness/form.js';
import { useServer } from './harness/use-server.js';

const ctx = useServer({ env: { PDN_PDF_ENGINE: 'pdf-lib', PDN_COMPRESS_ENGINE: 'pdf-lib' } });
let key: string;
let pdf: Uint8Array;

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'parts' });
  pdf = await labelledPdf('P', 3);
});

/** A multipart body the way Python's `requests.post(url, files={'file': open(...)})` writes it. */
function withoutContentType(
  part: string,
  filename: string,
  bytes: Uint8Array,
): { body: Buffer; type: string } {
  const boundary = 'c5ee2b8ad5b54aa18cd6a9b2bd4d4e58';
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${part}"; filename="${filename}"\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

describe('file parts', () => {
  it('takes a part with a filename and no Content-Type as the file', async () => {
    const { body, type } = withoutContentType('file', 'report.pdf', pdf);
    const res = await ctx.call<CompressResponse>('/api/v1/compress', {
      key,
      headers: { 'content-type': type },
      body,
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ filename: 'report.compressed.pdf', page_count: 3 });
  });
});

describe('names with controls', () => {
  // U+202E (right-to-left override) shows `invoice\u202Efdp.exe.pdf` as "invoiceexe.pdf".
  const spoof = 'invoice\u202Efdp.exe\u2066.pdf';

  it('compress names its output without them, in the answer and in the download', async () => {
    const res = await ctx.call<CompressResponse>('/api/v1/compress', {
      key,
      body: form(file('file', pdf, spoof)),
    });
    expect(res.status).toBe(200);
    expect(res.json.data.filename).toBe('invoicefdp.exe.compressed.pdf');
    const got = await download(ctx, res.json.data.download.url);
    expect(got.filename).toBe('invoicefdp.exe.compressed.pdf');
  });

  it('split names its parts without them', async () => {
    const res = await ctx.call<SplitResponse>('/api/v1/split', {
      key,
      body: form(file('file', pdf, `a\u200Fb\u061Cc\u0085.pdf`), field('ranges', '1')),
    });
    expect(res.status, res.bytes.toString()).toBe(200);
    expect(res.json.data.parts[0]?.filename).toBe('abc.pages-1.pdf');
  });
});

describe('text fields sent empty', () => {
  const used = async () => (await ctx.call<AccountResponse>('/api/v1/account', { key })).json.data.used;

  it('read as not sent: the default level, no callback, on a synchronous call', async () => {
    const res = await ctx.call<CompressResponse>('/api/v1/compress', {
      key,
      body: form(file('file', pdf, 'empty-fields.pdf'), field('level', ''), field('callback_url', '')),
    });
    expect(res.status, res.bytes.toString()).toBe(200);
    expect(res.json.data.level).toBe('medium');
  });

  it('leave a required field missing: `ranges=` is 400 invalid_input', async () => {
    const res = await ctx.call<{ error: { code: string; message: string } }>('/api/v1/split', {
      key,
      body: form(file('file', pdf), field('ranges', '')),
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_input');
    expect(res.json.error.message).toMatch(/`ranges`.*sent empty counts as not sent/);
  });

  it('make the same request as fields left out, for the Idempotency-Key', async () => {
    const before = await used();
    const headers = { 'Idempotency-Key': 'empty-fields-are-absent' };
    const sent = await ctx.call<CompressResponse>('/api/v1/compress', {
      key,
      headers,
      body: form(file('file', pdf, 'same.pdf'), field('level', ''), field('callback_url', '')),
    });
    const again = await ctx.call<CompressResponse>('/api/v1/compress', {
      key,
      headers,
      body: form(file('file', pdf, 'same.pdf')),
    });
    expect(sent.status).toBe(200);
    expect(again.status, again.bytes.toString()).toBe(200);
    expect(again.json.data.compressed_size).toBe(sent.json.data.compressed_size);
    expect(await used()).toBe(before + 1);
  });
});
