// Signed download URLs: no Authorization, not rate limited, an attachment with the output's
// filename; tampered or missing signature 403 `forbidden`, validly signed but expired 410 `expired`,
// validly signed but gone 404 `not_found`; the measured parsing traps are 403/404, never a 500.
import type { MergeResponse } from '@pdn/api-types';
import { labelledPdf, pageLabels } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { download } from './harness/download.js';
import { file, form } from './harness/form.js';
import { signedDownloadUrl } from './harness/sign-download.js';
import { useServer } from './harness/use-server.js';

const ctx = useServer();
let freeKey: string;
let result: MergeResponse['data'];
/** Unix seconds just before the merge that issued `result` was sent, and just after it answered. */
let issuedBetween: [number, number];
/** The parameters of the URL the server issued. */
let issued: { file: string; exp: string; sig: string };

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function query(pairs: [string, string][]): string {
  return `/api/get-pdf.php?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`;
}

beforeAll(async () => {
  freeKey = await ctx.server.createKey({ user: 'downloader', plan: 'free' });
  const body = form(
    file('files[]', await labelledPdf('A', 1), 'a.pdf'),
    file('files[]', await labelledPdf('B', 1), 'b.pdf'),
  );
  const asked = nowSeconds();
  const res = await ctx.call<MergeResponse>('/api/v1/merge', { key: freeKey, body });
  issuedBetween = [asked, nowSeconds()];
  expect(res.status).toBe(200);
  result = res.json.data;
  const params = new URL(result.download.url, 'http://x').searchParams;
  issued = { file: params.get('file') ?? '', exp: params.get('exp') ?? '', sig: params.get('sig') ?? '' };
});

describe('a download URL as issued', () => {
  it('is valid for 900 seconds', () => {
    expect(result.download.expires_in).toBe(900);
    // 900 s after the server signed it, which it did while the merge was answered: bounds from this
    // process's clock around the call, however long the merge took on a loaded machine.
    const expiresAt = Date.parse(result.download.expires_at) / 1000;
    expect(expiresAt).toBeGreaterThanOrEqual(issuedBetween[0] + 900);
    expect(expiresAt).toBeLessThanOrEqual(issuedBetween[1] + 900);
  });

  it('serves the PDF with its filename, without a key, and does not count against the rate limit', async () => {
    for (let i = 0; i < 12; i += 1) {
      const got = await download(ctx, result.download.url);
      expect(got.filename).toBe(result.filename);
      expect(await pageLabels(got.bytes)).toEqual(['A-1', 'B-1']);
    }
    // 1 merge so far on a Free plan: a second leaves 8, however many downloads happened.
    const body = form(
      file('files[]', await labelledPdf('C', 1), 'c.pdf'),
      file('files[]', await labelledPdf('D', 1), 'd.pdf'),
    );
    const res = await ctx.call('/api/v1/merge', { key: freeKey, body });
    expect(res.headers.get('x-ratelimit-remaining')).toBe('8');
  });
});

describe('URL traps', () => {
  const flip = (hex: string) => hex.slice(0, -1) + (hex.endsWith('0') ? '1' : '0');
  const unknownId = 'AAAAAAAAAAAAAAAAAAAAAAAA';

  it.each<[string, () => string, number[]]>([
    [
      'a tampered signature',
      () =>
        query([
          ['file', issued.file],
          ['exp', issued.exp],
          ['sig', flip(issued.sig)],
        ]),
      [403],
    ],
    [
      'no signature',
      () =>
        query([
          ['file', issued.file],
          ['exp', issued.exp],
        ]),
      [403],
    ],
    [
      'no exp',
      () =>
        query([
          ['file', issued.file],
          ['sig', issued.sig],
        ]),
      [403],
    ],
    [
      'no file',
      () =>
        query([
          ['exp', issued.exp],
          ['sig', issued.sig],
        ]),
      [403],
    ],
    ['no query at all', () => '/api/get-pdf.php', [403]],
    [
      'file=a&file=b',
      () =>
        query([
          ['file', issued.file],
          ['file', unknownId],
          ['exp', issued.exp],
          ['sig', issued.sig],
        ]),
      [403],
    ],
    [
      'the same file twice',
      () =>
        query([
          ['file', issued.file],
          ['file', issued.file],
          ['exp', issued.exp],
          ['sig', issued.sig],
        ]),
      [403],
    ],
    [
      'sig twice',
      () =>
        query([
          ['file', issued.file],
          ['exp', issued.exp],
          ['sig', issued.sig],
          ['sig', issued.sig],
        ]),
      [403],
    ],
    [
      "exp=''",
      () =>
        query([
          ['file', issued.file],
          ['exp', ''],
          ['sig', issued.sig],
        ]),
      [403],
    ],
    [
      'a later exp with the old signature',
      () =>
        query([
          ['file', issued.file],
          ['exp', String(Number(issued.exp) + 3600)],
          ['sig', issued.sig],
        ]),
      [403],
    ],
    [
      "sig 'abcg'",
      () =>
        query([
          ['file', issued.file],
          ['exp', issued.exp],
          ['sig', 'abcg'],
        ]),
      [403],
    ],
    [
      'a non-hex signature of the right length',
      () =>
        query([
          ['file', issued.file],
          ['exp', issued.exp],
          ['sig', `${issued.sig.slice(0, -1)}g`],
        ]),
      [403],
    ],
    [
      'a signature one byte short',
      () =>
        query([
          ['file', issued.file],
          ['exp', issued.exp],
          ['sig', issued.sig.slice(0, -2)],
        ]),
      [403],
    ],
    [
      'a signature one byte long',
      () =>
        query([
          ['file', issued.file],
          ['exp', issued.exp],
          ['sig', `${issued.sig}00`],
        ]),
      [403],
    ],
    [
      'another file with this signature',
      () =>
        query([
          ['file', unknownId],
          ['exp', issued.exp],
          ['sig', issued.sig],
        ]),
      [403],
    ],
    [
      '..%2F in file, unsigned',
      () =>
        query([
          ['file', `..%2F..%2F${issued.file}`],
          ['exp', issued.exp],
          ['sig', issued.sig],
        ]),
      [403],
    ],
    [
      '..%2F in file, validly signed',
      () => signedDownloadUrl(ctx.server.signingSecret, '../../signing-secret', nowSeconds() + 600),
      [403, 404],
    ],
    [
      '%00 in file, validly signed',
      () => signedDownloadUrl(ctx.server.signingSecret, `${issued.file}\0.json`, nowSeconds() + 600),
      [403, 404],
    ],
    [
      'an absolute path, validly signed',
      () => signedDownloadUrl(ctx.server.signingSecret, '/etc/passwd', nowSeconds() + 600),
      [403, 404],
    ],
    [
      "exp '1e10', validly signed",
      () => signedDownloadUrl(ctx.server.signingSecret, issued.file, '1e10'),
      [403],
    ],
    [
      "exp '0', validly signed",
      () => signedDownloadUrl(ctx.server.signingSecret, issued.file, '0'),
      [403, 410],
    ],
    [
      'an expired URL, validly signed',
      () => signedDownloadUrl(ctx.server.signingSecret, issued.file, nowSeconds() - 60),
      [410],
    ],
    [
      'an output that does not exist, validly signed',
      () => signedDownloadUrl(ctx.server.signingSecret, unknownId, nowSeconds() + 600),
      [404],
    ],
  ])('%s is refused', async (_name, url, statuses) => {
    const res = await ctx.call(url());
    expect(statuses).toContain(res.status);
  });

  it('after all that, the issued URL still works', async () => {
    expect((await download(ctx, result.download.url)).bytes.length).toBe(result.size);
  });
});

describe('without PDN_SIGNING_SECRET', () => {
  const own = useServer({ env: { PDN_SIGNING_SECRET: '' } });

  it('generates a secret in the data folder, so issued URLs survive a restart', async () => {
    const key = await own.server.createKey({ user: 'restarter', plan: 'premium' });
    const body = form(file('files[]', await labelledPdf('A', 1)), file('files[]', await labelledPdf('B', 1)));
    const res = await own.call<MergeResponse>('/api/v1/merge', { key, body });
    expect(res.status).toBe(200);
    await own.server.restart();
    expect(await pageLabels((await download(own, res.json.data.download.url)).bytes)).toEqual(['A-1', 'B-1']);
  });
});
