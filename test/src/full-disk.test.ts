// A full data folder is the server's problem, not the client's: merge used to say
// "file 1 is empty (0 bytes)", compress "damaged or truncated", split "has no pages", and /healthz "ok"
// while every call failed with SQLITE_FULL. On a real, small file system filled to the brim (and
// nearly so: room for the upload, not for the output), every operation is `507 insufficient_storage`
// with a retry hint, /healthz says so, no work folder is left, and once space is freed the same
// requests succeed. The engines are whatever is installed: qpdf and Ghostscript when present.
import { join } from 'node:path';
import { labelledPdf } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallResult, call } from './contract/checked-fetch.js';
import { field, file, form } from './harness/form.js';
import { requestFolders } from './harness/leftovers.js';
import { startServer, type TestServer } from './harness/server.js';
import { mountSmallDisk } from './harness/small-disk.js';

const KiB = 1024;
const disk = await mountSmallDisk(16);

type ErrorBody = { error: { code: string; message: string; retry_after_seconds?: number } };

describe.skipIf(disk === undefined)('a full data folder', () => {
  let server: TestServer;
  let key: string;
  let big: Uint8Array;
  let small: Uint8Array;
  const dataDir = join(disk?.path ?? '', 'data');

  beforeAll(async () => {
    server = await startServer({ env: { PDN_DATA_DIR: dataDir } });
    key = await server.createKey({ user: 'full' });
    small = await labelledPdf('S', 4);
    // About 80 KiB: two fit the room left below, their merge does not.
    big = await labelledPdf('B', 150);
  });

  afterAll(async () => {
    await server?.stop();
    await disk?.remove();
  });

  const api = (path: string, body?: FormData): Promise<CallResult<ErrorBody>> =>
    call<ErrorBody>(server.baseUrl, path, { key, ...(body === undefined ? {} : { body }) });

  const operations: [string, () => Promise<CallResult<ErrorBody>>][] = [
    ['merge', () => api('/api/v1/merge', form(file('files[]', big, 'a.pdf'), file('files[]', big, 'b.pdf')))],
    ['compress', () => api('/api/v1/compress', form(file('file', big, 'a.pdf'), field('level', 'low')))],
    ['split', () => api('/api/v1/split', form(file('file', big, 'a.pdf'), field('ranges', '1-150,1-150')))],
  ];

  function expectInsufficientStorage(res: CallResult<ErrorBody>): void {
    expect(res.status, JSON.stringify(res.json)).toBe(507);
    expect(res.json.error.code).toBe('insufficient_storage');
    expect(res.json.error.retry_after_seconds).toBeGreaterThan(0);
  }

  function workFolders(): Promise<string[]> {
    return requestFolders(dataDir);
  }

  describe('filled to the brim', () => {
    beforeAll(() => disk?.fill());
    afterAll(() => disk?.empty());

    it.each(operations)('%s is 507 insufficient_storage', async (_name, run) => {
      expectInsufficientStorage(await run());
    });

    // The rate limit records the call before the body is read; listing languages no longer writes
    // anything (it is not counted).
    it('a call that fails at its first database write (the rate limit of a merge) is 507 too', async () => {
      expectInsufficientStorage(await api('/api/v1/merge', form(field('unexpected', 'x'))));
    });

    it('/healthz reports it', async () => {
      expectInsufficientStorage(await call<ErrorBody>(server.baseUrl, '/healthz'));
    });

    it('/readyz is 503 naming the data folder', async () => {
      const ready = await call<ErrorBody>(server.baseUrl, '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.json.error).toMatchObject({
        code: 'service_unavailable',
        message: expect.stringContaining('data_folder'),
      });
    });

    it('leaves no work folder', async () => {
      expect(await workFolders()).toEqual([]);
    });
  });

  describe('with room for the uploads but not the outputs', () => {
    beforeAll(() => disk?.fill(200 * KiB));
    afterAll(() => disk?.empty());

    it.each(operations)('%s is 507 insufficient_storage', async (_name, run) => {
      expectInsufficientStorage(await run());
    });

    it('an upload larger than the room left is 507, not a short file', async () => {
      const res = await api(
        '/api/v1/merge',
        form(file('files[]', small), file('files[]', new Uint8Array(400 * KiB))),
      );
      expectInsufficientStorage(res);
    });

    it('/healthz reports it', async () => {
      expectInsufficientStorage(await call<ErrorBody>(server.baseUrl, '/healthz'));
    });

    it('leaves no work folder', async () => {
      expect(await workFolders()).toEqual([]);
    });
  });

  describe('once space is freed', () => {
    it('/healthz is ok again, and /readyz ready', async () => {
      expect((await call(server.baseUrl, '/healthz')).status).toBe(200);
      expect((await call(server.baseUrl, '/readyz')).status).toBe(200);
    });

    it.each(operations)('%s succeeds', async (_name, run) => {
      expect((await run()).status).toBe(200);
    });
  });
});
