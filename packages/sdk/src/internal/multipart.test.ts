import { describe, expect, it } from 'vitest';
import { encodeMultipart } from './multipart.js';

// Parsed back by the platform's own multipart parser (undici's Request.formData), the one a
// server written with web standards would use: if it reads our bytes, they are well formed.
async function parse(body: Blob | ReadableStream<Uint8Array>, contentType: string): Promise<FormData> {
  return new Request('http://localhost/', {
    method: 'POST',
    body,
    headers: { 'content-type': contentType },
    duplex: 'half',
  } as RequestInit).formData();
}

describe('encodeMultipart', () => {
  it('makes one Blob, with a known length, when every part is a Blob', async () => {
    const { body, contentType } = encodeMultipart([
      { name: 'file', filename: 'a.pdf', type: 'application/pdf', content: new Blob(['%PDF-1.7 a']) },
      { name: 'level', value: 'high' },
    ]);
    expect(body).toBeInstanceOf(Blob);
    const form = await parse(body, contentType);
    const file = form.get('file') as File;
    expect([file.name, file.type, await file.text()]).toEqual(['a.pdf', 'application/pdf', '%PDF-1.7 a']);
    expect(form.get('level')).toBe('high');
  });

  it('makes a stream when a part is a stream, keeping the order of the parts', async () => {
    const stream = new Blob(['streamed bytes']).stream();
    const { body, contentType } = encodeMultipart([
      { name: 'files[]', filename: 'one.pdf', type: 'application/pdf', content: new Blob(['one']) },
      { name: 'files[]', filename: 'two.pdf', type: 'application/pdf', content: stream },
    ]);
    expect(body).toBeInstanceOf(ReadableStream);
    const files = (await parse(body, contentType)).getAll('files[]') as File[];
    expect(await Promise.all(files.map(async (f) => [f.name, await f.text()]))).toEqual([
      ['one.pdf', 'one'],
      ['two.pdf', 'streamed bytes'],
    ]);
  });

  it('escapes quotes and line breaks so a filename cannot end its header', async () => {
    const { body, contentType } = encodeMultipart([
      {
        name: 'file',
        filename: 'evil".pdf\r\nX-Injected: 1',
        type: 'application/pdf',
        content: new Blob(['x']),
      },
    ]);
    const text = await (body as Blob).text();
    expect(text).toContain('filename="evil%22.pdf%0D%0AX-Injected: 1"');
    expect(text).not.toContain('\r\nX-Injected');
    expect(contentType).toMatch(/^multipart\/form-data; boundary=pdn-[0-9a-f]{32}$/);
  });
});
