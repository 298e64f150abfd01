// @pdn/sdk against the real server: every operation, the download helpers, and
// the error family as the server really triggers it. The SDK gets a fetch that contract-checks every
// response it receives, so these tests also validate what the SDK saw.
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { characterErrorRate, labelledPdf, notAPdf, ocrSample, pageLabels } from '@pdn/fixtures';
import {
  AuthenticationError,
  type Download,
  ExpiredError,
  ForbiddenError,
  fromPath,
  InvalidInputError,
  NotFoundError,
  PayloadTooLargeError,
  Pdn,
  RateLimitError,
  toFile,
} from '@pdn/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CheckedFetch, checkedFetch } from './contract/checked-fetch.js';
import { pageCount } from './harness/download.js';
import { signedDownloadUrl } from './harness/sign-download.js';
import { useServer } from './harness/use-server.js';

const MiB = 1024 * 1024;
const ctx = useServer({ env: { PDN_UPLOAD_LIMIT_FREE: String(1 * MiB) } });
let checked: CheckedFetch;
let workDir: string;
let premiumKey: string;

function client(apiKey: string, options: { maxRetries?: number } = {}): Pdn {
  return new Pdn({ apiKey, baseUrl: ctx.server.baseUrl, fetch: checked.fetch, ...options });
}

beforeAll(async () => {
  checked = checkedFetch();
  workDir = await mkdtemp(join(tmpdir(), 'pdn-e2e-sdk-'));
  premiumKey = await ctx.server.createKey({ user: 'sdk-user', plan: 'premium' });
});

afterEach(() => checked.assertConforms());

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('operations', () => {
  it('compresses a file from a path and downloads it to a path and to bytes', async () => {
    const source = join(workDir, 'report.pdf');
    await writeFile(source, await labelledPdf('R', 3));
    const pdn = client(premiumKey);
    const result = await pdn.compress({ file: fromPath(source), level: 'high' });
    expect(result.filename).toBe('report.compressed.pdf');
    expect(result.page_count).toBe(3);
    expect(result.requestId).toBe(checked.exchanges.at(-1)?.headers.get('x-request-id'));
    expect(result.rateLimit?.limit).toBe(1000);

    const target = join(workDir, 'small.pdf');
    expect(await pdn.download(result.download, target)).toBe(target);
    const onDisk = await readFile(target);
    expect(onDisk.length).toBe(result.compressed_size);
    const bytes = await pdn.download(result.download);
    expect(Buffer.from(bytes).equals(onDisk)).toBe(true);
  });

  it('merges a path, a Buffer and a Blob in that order', async () => {
    const first = join(workDir, 'first.pdf');
    await writeFile(first, await labelledPdf('P', 1));
    const buffer = Buffer.from(await labelledPdf('Q', 2));
    const blob = new Blob([await labelledPdf('S', 1)], { type: 'application/pdf' });
    const pdn = client(premiumKey);
    const result = await pdn.merge({ files: [fromPath(first), buffer, blob] });
    expect(result).toMatchObject({ page_count: 4, input_count: 3 });
    expect(await pageLabels(await pdn.download(result.download))).toEqual(['P-1', 'Q-1', 'Q-2', 'S-1']);
  });

  it.each([
    ['a list', ['3-4', '1']],
    ['a string', '3-4,1'],
  ])('splits with ranges given as %s', async (_name, ranges) => {
    const pdn = client(premiumKey);
    const result = await pdn.split({ file: await labelledPdf('B', 4), ranges });
    expect(result.parts.map((part) => part.pages)).toEqual(['3-4', '1']);
    const [first] = result.parts;
    if (!first) throw new Error('no parts');
    expect(await pageLabels(await pdn.download(first.download))).toEqual(['B-3', 'B-4']);
  });

  it('reads German text from an image', async () => {
    const sample = await ocrSample('deu', 'png');
    const result = await client(premiumKey).ocr({ image: sample.bytes, language: 'deu' });
    expect(result.language).toBe('deu');
    expect(characterErrorRate(sample.text, result.text)).toBeLessThan(0.05);
  });

  it('uploads a one-shot Node stream and streams the download back', async () => {
    const source = join(workDir, 'streamed.pdf');
    await writeFile(source, await labelledPdf('N', 2));
    const pdn = client(premiumKey);
    const result = await pdn.compress({
      file: toFile(createReadStream(source), 'streamed.pdf'),
      level: 'low',
    });
    expect(result.filename).toBe('streamed.compressed.pdf');
    const bytes = Buffer.from(await new Response(await pdn.downloadStream(result.download)).arrayBuffer());
    expect(bytes.length).toBe(result.compressed_size);
    expect(await pageCount(bytes)).toBe(2);
  });

  it('lists the OCR languages', async () => {
    const result = await client(premiumKey).languages();
    expect(result.default).toBe('eng');
    expect(result.languages.map((language) => language.code)).toContain('deu');
  });
});

describe('asResponse()', () => {
  it('hands over the raw answer of a compress, its body not read, and of its download as it streams', async () => {
    const pdn = client(premiumKey);
    const response = await pdn.compress({ file: await labelledPdf('raw', 2) }).asResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(response.bodyUsed).toBe(false);
    const { data } = (await response.json()) as { data: { download: Download; page_count: number } };
    expect(data.page_count).toBe(2);
    const pdf = await pdn.downloadStream(data.download).asResponse();
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(await pageCount(new Uint8Array(await pdf.arrayBuffer()))).toBe(2);
  });

  it('still rejects an error answer with its typed error', async () => {
    await expect(
      client('pdn_live_0123456789abcdef0123456789abcdef').languages().asResponse(),
    ).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('errors', () => {
  it('AuthenticationError for an unknown key, with status and request id', async () => {
    const error = await client(`pdn_live_${'0'.repeat(32)}`)
      .languages()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: 'unauthorized' });
    expect((error as AuthenticationError).requestId).toBe(
      checked.exchanges.at(-1)?.headers.get('x-request-id'),
    );
  });

  it('InvalidInputError from the server for a file that is not a PDF', async () => {
    const error = await client(premiumKey)
      .compress({ file: notAPdf() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_input' });
  });

  it('InvalidInputError before sending anything for a bare string as file content', async () => {
    const sent = checked.exchanges.length;
    const error = await client(premiumKey)
      .compress({ file: 'report.pdf' as unknown as Uint8Array })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(checked.exchanges.length).toBe(sent);
  });

  it('InvalidInputError before sending anything for one file to merge', async () => {
    const sent = checked.exchanges.length;
    const error = await client(premiumKey)
      .merge({ files: [await labelledPdf('X', 1)] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).status).toBeUndefined();
    expect(checked.exchanges.length).toBe(sent);
  });

  it('PayloadTooLargeError when the upload exceeds the plan', async () => {
    const key = await ctx.server.createKey({ user: 'sdk-small-plan', plan: 'free' });
    const big = new Uint8Array(3 * MiB).fill(0x20);
    big.set(Buffer.from('%PDF-1.7\n'));
    const error = await client(key, { maxRetries: 0 })
      .compress({ file: big })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error).toMatchObject({ status: 413, code: 'payload_too_large' });
  });

  it('PayloadTooLargeError at once for a file past the server drain, little of it sent', async () => {
    // Past the 64 MiB the server reads after an early answer (openapi.yaml, "Connections"), a client
    // sending its whole body before reading would see a broken connection. The SDK sends the file's
    // Content-Length, the server refuses from the headers, and fetch reads that while it sends.
    const key = await ctx.server.createKey({ user: 'sdk-past-drain', plan: 'free' });
    const path = join(workDir, 'past-drain.pdf');
    await writeFile(path, '');
    await truncate(path, 96 * MiB);
    let loaded = 0;
    const error = await client(key, { maxRetries: 0 })
      .compress({ file: fromPath(path), onUploadProgress: (progress) => (loaded = progress.loaded) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(loaded).toBeLessThan(32 * MiB);
  });

  it('RateLimitError with retryAfter on an exhausted Free key, without waiting an hour', async () => {
    const key = await ctx.server.createKey({ user: 'sdk-free', plan: 'free' });
    const pdn = client(key);
    // Listing languages is not counted: the hour is spent on the smallest counted call.
    const split = async () => pdn.split({ file: await labelledPdf('Q', 1), ranges: ['1'] });
    for (let i = 0; i < 10; i += 1) await split();
    const sent = checked.exchanges.length;
    const error = await split().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    const limited = error as RateLimitError;
    expect(limited).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(limited.message).toMatch(/free/i);
    expect(limited.retryAfter).toBeGreaterThan(60);
    expect(limited.rateLimit).toMatchObject({ limit: 10, remaining: 0 });
    // Retry-After is beyond the SDK's 60 s cap, so it fails at once instead of retrying.
    expect(checked.exchanges.length - sent).toBe(1);
  });

  describe('downloads', () => {
    let issued: { url: string; expires_in: number; expires_at: string };
    beforeAll(async () => {
      const result = await client(premiumKey).merge({
        files: [await labelledPdf('D', 1), await labelledPdf('E', 1)],
      });
      issued = result.download;
    });

    it('ForbiddenError for a tampered URL', async () => {
      const url = issued.url.replace(/sig=([0-9a-f])/, (_m, c: string) => `sig=${c === '0' ? '1' : '0'}`);
      const error = await client(premiumKey)
        .download({ ...issued, url })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ForbiddenError);
      expect(error).toMatchObject({ status: 403 });
    });

    it('NotFoundError for a validly signed URL to an output that does not exist', async () => {
      const exp = Math.floor(Date.now() / 1000) + 600;
      const url = signedDownloadUrl(ctx.server.signingSecret, 'AAAAAAAAAAAAAAAAAAAAAAAA', exp);
      const error = await client(premiumKey)
        .download({ ...issued, url })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error).toMatchObject({ status: 404 });
    });

    it('ExpiredError from the server for a validly signed expired URL', async () => {
      const exp = Math.floor(Date.now() / 1000) - 60;
      const file = new URL(issued.url, 'http://x').searchParams.get('file') ?? '';
      const url = signedDownloadUrl(ctx.server.signingSecret, file, exp);
      // expires_at still in the future so the SDK asks the server, which knows better.
      const error = await client(premiumKey)
        .download({ ...issued, url })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExpiredError);
      expect(error).toMatchObject({ status: 410 });
    });

    it('ExpiredError without calling the server when expires_at has passed', async () => {
      const sent = checked.exchanges.length;
      const stale = { ...issued, expires_in: 0, expires_at: new Date(Date.now() - 1000).toISOString() };
      const error = await client(premiumKey)
        .download(stale)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExpiredError);
      expect(checked.exchanges.length).toBe(sent);
    });
  });
});
