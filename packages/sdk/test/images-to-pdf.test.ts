// Images to PDF through the SDK: `pdn.imagesToPdf` sends the images in order as the repeated part
// `images[]` and its options as the contract's form fields, checks them before sending, and answers the
// typed result; `pdn.jobs.submit('images_to_pdf')` sends the same request.
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { type ImagesToPdfParams, type ImagesToPdfResult, InvalidInputError } from '../src/index.js';
import { baseUrl, client, download, ok, sent, server, useMsw } from './msw.js';

useMsw();

const photo = new File([new Uint8Array([0xff, 0xd8, 0xff])], 'photo.jpg', { type: 'image/jpeg' });
const scan = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'scan.png', { type: 'image/png' });

const data: Omit<ImagesToPdfResult, 'requestId' | 'rateLimit'> = {
  filename: 'photo.pdf',
  page_count: 2,
  input_count: 2,
  page_size: 'a4',
  size: 2048,
  download: download(),
};

type Field = { name: string; value: string } | { name: string; filename: string; type: string };

function receive(answer: () => Response = () => ok(data)): Field[][] {
  const bodies: Field[][] = [];
  server.use(
    http.post(`${baseUrl}/api/v1/images-to-pdf`, async ({ request }) => {
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

describe('imagesToPdf', () => {
  it.each<[string, Omit<ImagesToPdfParams, 'images'>, Array<[string, string]>]>([
    ['only the images when no option is given (the server’s defaults)', {}, []],
    [
      'every option as the contract’s field',
      { pageSize: 'a4', orientation: 'landscape', fit: 'cover', marginMm: 12.5 },
      [
        ['page_size', 'a4'],
        ['orientation', 'landscape'],
        ['fit', 'cover'],
        ['margin_mm', '12.5'],
      ],
    ],
  ])('sends %s', async (_name, params, want) => {
    const bodies = receive();
    await client().imagesToPdf({ images: [photo, scan], ...params });
    expect(bodies).toEqual([
      [
        { name: 'images[]', filename: 'photo.jpg', type: 'image/jpeg' },
        { name: 'images[]', filename: 'scan.png', type: 'image/png' },
        ...want.map(([name, value]) => ({ name, value })),
      ],
    ]);
  });

  it('names bytes without a name by their place, typed by no format (the server reads them)', async () => {
    const bodies = receive();
    await client().imagesToPdf({ images: [new Uint8Array([1]), new Uint8Array([2])] });
    expect(bodies[0]).toEqual([
      { name: 'images[]', filename: 'image-1', type: 'application/octet-stream' },
      { name: 'images[]', filename: 'image-2', type: 'application/octet-stream' },
    ]);
  });

  it('answers the server’s data, typed, with the request id beside it', async () => {
    receive();
    const result = await client().imagesToPdf({ images: [photo, scan] });
    expect(JSON.parse(JSON.stringify(result))).toEqual(data);
    expect(result.requestId).toBe('req_ok');
  });

  it.each<[string, Partial<ImagesToPdfParams>, RegExp]>([
    ['no images', { images: [] }, /takes 1 to 500 images, got 0/],
    ['images not in a list', { images: photo as never }, /takes 1 to 500 images, got no list/],
    [
      'an unknown page size',
      { pageSize: 'b5' as never },
      /pageSize must be one of image, a3, a4, a5, letter, legal/,
    ],
    ['an unknown orientation', { orientation: 'upside' as never }, /orientation must be one of auto/],
    ['an unknown fit', { fit: 'stretch' as never }, /fit must be one of contain, cover/],
    ['a margin too wide', { marginMm: 51 }, /marginMm must be a number from 0 to 50/],
    ['a margin as text', { marginMm: '5' as never }, /marginMm must be a number from 0 to 50/],
  ])('refuses %s before sending', async (_name, params, message) => {
    const error = await client()
      .imagesToPdf({ images: [photo], ...params })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(message);
    expect(sent).toHaveLength(0);
  });

  it('is submitted as a job with the same request', async () => {
    const bodies = receive(() =>
      HttpResponse.json(
        {
          data: {
            id: 'job_Q2xvdWRDb252ZXJ0MDAxYQ',
            operation: 'images_to_pdf',
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
    const job = await client().jobs.submit('images_to_pdf', { images: [scan], pageSize: 'letter' });
    expect(job.operation).toBe('images_to_pdf');
    expect(bodies[0]).toEqual([
      { name: 'images[]', filename: 'scan.png', type: 'image/png' },
      { name: 'page_size', value: 'letter' },
    ]);
  });
});
