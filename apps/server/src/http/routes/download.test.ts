// Content-Disposition of downloads: every name reaches the client intact through `filename*`
// (RFC 6266 section 4.3, RFC 5987 encoding), with a plain-ASCII `filename` for old clients. Real
// storage, a real listener.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../logger.js';
import { openStorage, type Storage } from '../../storage/index.js';
import { newOutputId } from '../../storage/output-id.js';
import type { AppState } from '../state.js';
import { downloadRoute } from './download.js';

let dataDir: string;
let storage: Storage;
let server: Server;
let base: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pdn-download-'));
  storage = await openStorage({ dataDir, signingSecret: undefined, log: createLogger('quiet') });
  const app = new Koa<AppState>();
  app.use(downloadRoute(storage.downloads));
  server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  storage?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function dispositionOf(filename: string): Promise<string | null> {
  const source = join(await storage.workDirs.create(), 'out.pdf');
  await writeFile(source, '%PDF-1.7 test');
  const { url } = await storage.downloads.publish(source, filename, {
    id: newOutputId(),
    keepUntil: Date.now() + 60_000,
  });
  const res = await fetch(`${base}${url}`);
  await res.arrayBuffer();
  return res.headers.get('content-disposition');
}

const table: [string, { given: string; want: string }][] = [
  [
    'an ASCII name as is',
    { given: 'report.compressed.pdf', want: 'attachment; filename="report.compressed.pdf"' },
  ],
  [
    'a Latin-1 name with an accent-free fallback',
    {
      given: 'Übersicht.compressed.pdf',
      want: `attachment; filename="Ubersicht.compressed.pdf"; filename*=UTF-8''%C3%9Cbersicht.compressed.pdf`,
    },
  ],
  [
    'a Cyrillic name',
    {
      given: 'отчёт.pages-1.pdf',
      want: `attachment; filename="_____.pages-1.pdf"; filename*=UTF-8''%D0%BE%D1%82%D1%87%D1%91%D1%82.pages-1.pdf`,
    },
  ],
  [
    // Stored before names were cleaned of bidi controls: the header still is.
    'a stored name holding a right-to-left override, without it',
    { given: 'invoice\u202Efdp.exe.pdf', want: 'attachment; filename="invoicefdp.exe.pdf"' },
  ],
];

describe('GET /api/get-pdf.php Content-Disposition', () => {
  it.each(table)('gives %s', async (_name, { given, want }) => {
    const header = await dispositionOf(given);
    expect(header).toBe(want);
    // Every byte of the header is ASCII: no client has to guess its charset.
    expect(header).toMatch(/^[\x20-\x7e]+$/);
  });
});
