import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExpiredError, ForbiddenError, NotFoundError } from '../errors.js';
import { DOWNLOAD_TTL_SECONDS, Downloads } from './downloads.js';
import { FolderOutputStore } from './folder-output-store.js';
import { newOutputId } from './output-id.js';
import type { OutputStore } from './output-store.js';
import { UrlSigner } from './url-signer.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('Downloads', () => {
  let dir: string;
  let clock: number;
  let store: OutputStore;
  let downloads: Downloads;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pdn-downloads-'));
    clock = T0;
    store = await FolderOutputStore.open(dir);
    downloads = new Downloads(store, new UrlSigner('s'.repeat(64)), () => clock);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Kept as long as one URL lasts, unless `keepFor` (ms) says otherwise. */
  async function publish(keepFor = DOWNLOAD_TTL_SECONDS * 1000) {
    const source = join(dir, 'work.pdf');
    await writeFile(source, '%PDF-1.7 test');
    return downloads.publish(source, 'report.compressed.pdf', {
      id: newOutputId(),
      keepUntil: clock + keepFor,
    });
  }

  function queryOf(url: string): Record<string, string> {
    return Object.fromEntries(new URL(url, 'http://x').searchParams);
  }

  it('publishes a signed relative URL valid for 900 s that opens the stored file', async () => {
    const download = await publish();
    expect(download.url).toMatch(/^\/api\/get-pdf\.php\?file=[\w-]{24}&exp=\d+&sig=[0-9a-f]{64}$/);
    expect(download.expires_in).toBe(DOWNLOAD_TTL_SECONDS);
    expect(download.expires_at).toBe(new Date(T0 + 900_000).toISOString());
    const opened = await downloads.open(queryOf(download.url));
    expect(opened.meta).toMatchObject({ filename: 'report.compressed.pdf', size: 13 });
    expect(await text(opened.body)).toBe('%PDF-1.7 test');
  });

  it('never signs a URL past the time the output is kept until', async () => {
    const download = await publish(60_000);
    expect(download.expires_in).toBe(60);
    expect(download.expires_at).toBe(new Date(T0 + 60_000).toISOString());
  });

  it('answers forbidden, expired and not found in that order', async () => {
    const query = queryOf((await publish()).url);
    const table: [string, { given: Record<string, unknown>; at: number; want: unknown }][] = [
      ['tampered', { given: { ...query, sig: '0'.repeat(64) }, at: T0, want: ForbiddenError }],
      [
        'tampered and expired',
        { given: { ...query, sig: '0'.repeat(64) }, at: T0 + 10_000_000, want: ForbiddenError },
      ],
      ['one second before expiry', { given: query, at: T0 + 899_000, want: undefined }],
      ['at expiry', { given: query, at: T0 + 900_000, want: ExpiredError }],
    ];
    for (const [name, { given, at, want }] of table) {
      clock = at;
      const outcome = await downloads.open(given).then(
        (opened) => {
          opened.body.destroy();
          return undefined;
        },
        (error: unknown) => (error as Error).constructor,
      );
      expect(outcome, name).toBe(want);
    }
  });

  it('is not found once swept, and expired links stay expired after the sweep', async () => {
    const query = queryOf((await publish()).url);
    expect(await store.sweep(T0 + 899_000)).toBe(0);
    expect(await store.sweep(T0 + 900_000)).toBe(1);
    clock = T0 + 1000;
    await expect(downloads.open(query)).rejects.toBeInstanceOf(NotFoundError);
    clock = T0 + 900_000;
    await expect(downloads.open(query)).rejects.toBeInstanceOf(ExpiredError);
  });

  it('keeps metadata beside the PDF and reveals no path in the URL', async () => {
    const download = await publish();
    const { file } = queryOf(download.url);
    const meta = JSON.parse(await readFile(join(dir, 'outputs', `${file}.json`), 'utf8'));
    expect(meta).toEqual({ id: file, filename: 'report.compressed.pdf', size: 13, expiresAt: T0 + 900_000 });
    expect(download.url).not.toContain('report');
  });
});
