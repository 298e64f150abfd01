// Each `pdn` command against the real server: compress, merge, split, ocr,
// languages and config, run as the built binary, checking the files it writes and what it prints.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { labelledPdf, pageLabels } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { pageCount } from '../src/harness/download.js';
import { useServer } from '../src/harness/use-server.js';
import { exportedPdn, jsonOf } from './run-pdn.js';
import { useWorkspace } from './workspace.js';

const ctx = useServer();
const ws = useWorkspace();
let key: string;

const pdn = exportedPdn(ws, () => ({ key, baseUrl: ctx.server.baseUrl }));

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'cli-user', plan: 'enterprise' });
});

describe('pdn compress', () => {
  it('writes <name>.compressed.pdf next to each input and prints sizes, saving and a total', async () => {
    await ws.file('docs/a.pdf', await labelledPdf('a', 2));
    await ws.file('docs/b.pdf', await labelledPdf('b', 3));
    const run = await pdn(['compress', 'docs/a.pdf', 'docs/b.pdf', '--level', 'high']);
    expect(run.code, run.stderr).toBe(0);
    expect(await pageCount(await readFile(ws.path('docs/a.compressed.pdf')))).toBe(2);
    expect(await pageCount(await readFile(ws.path('docs/b.compressed.pdf')))).toBe(3);
    expect(run.text).toMatch(/docs\/a\.pdf → docs\/a\.compressed\.pdf .*B → .*B/);
    expect(run.text).toMatch(/total: 2 files/);
  });

  it('with --json reports each file with the server data, request id and output', async () => {
    await ws.file('c.pdf', await labelledPdf('c', 1));
    const run = await pdn(['compress', 'c.pdf', '-o', 'out/', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const report = jsonOf(run);
    expect(report).toMatchObject({ command: 'compress', ok: true, error: null });
    expect(report.summary).toEqual({ total: 1, succeeded: 1, failed: 0, not_processed: 0, skipped: 0 });
    const [item] = report.results;
    expect(item?.request_id).toMatch(/\S/);
    expect(item?.data).toMatchObject({ filename: 'c.compressed.pdf', page_count: 1, level: 'medium' });
    const size = (await stat(ws.path('out/c.compressed.pdf'))).size;
    expect(item?.outputs).toEqual([{ kind: 'file', path: 'out/c.compressed.pdf', bytes: size }]);
    expect(item?.data?.compressed_size).toBe(size);
  });

  it('never overwrites an existing output without --force', async () => {
    await ws.file('keep.pdf', await labelledPdf('k', 1));
    await writeFile(ws.path('keep.compressed.pdf'), 'mine');
    const refused = await pdn(['compress', 'keep.pdf', '--json']);
    expect(refused.code).toBe(1);
    expect(jsonOf(refused).results[0]?.error).toMatchObject({ code: 'output_exists' });
    expect(await readFile(ws.path('keep.compressed.pdf'), 'utf8')).toBe('mine');

    const forced = await pdn(['compress', 'keep.pdf', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await pageCount(await readFile(ws.path('keep.compressed.pdf')))).toBe(1);
  });

  it('with --no-download prints signed URLs that serve the output', async () => {
    await ws.file('u.pdf', await labelledPdf('u', 2));
    const run = await pdn(['compress', 'u.pdf', '--no-download', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const output = jsonOf(run).results[0]?.outputs[0];
    expect(output?.kind).toBe('url');
    if (output?.kind !== 'url') return;
    expect(output.url.startsWith(`${ctx.server.baseUrl}/api/get-pdf.php?`)).toBe(true);
    const res = await fetch(output.url);
    expect(res.status).toBe(200);
    expect(await pageCount(new Uint8Array(await res.arrayBuffer()))).toBe(2);
    await expect(stat(ws.path('u.compressed.pdf'))).rejects.toThrow();
  });
});

describe('pdn merge', () => {
  it('joins the files in the order given into -o', async () => {
    const a = await ws.file('m/a.pdf', await labelledPdf('A', 2));
    const b = await ws.file('m/b.pdf', await labelledPdf('B', 1));
    const run = await pdn(['merge', b, a, '-o', 'm/ba.pdf']);
    expect(run.code, run.stderr).toBe(0);
    expect(await pageLabels(await readFile(ws.path('m/ba.pdf')))).toEqual(['B-1', 'A-1', 'A-2']);
    expect(run.text).toMatch(/3 pages/);
  });

  it('refuses one file as a usage error without calling the server', async () => {
    await ws.file('m/one.pdf', await labelledPdf('one', 1));
    const run = await pdn(['merge', 'm/one.pdf', '-o', 'm/x.pdf', '--json']);
    expect(run.code).toBe(2);
    expect(jsonOf(run).results[0]?.error).toMatchObject({
      code: 'invalid_input',
      status: null,
      request_id: null,
    });
  });
});

describe('pdn split', () => {
  it('writes one file per range, named after the range', async () => {
    await ws.file('s/book.pdf', await labelledPdf('book', 5));
    const run = await pdn(['split', 's/book.pdf', '--ranges', '1, 2-3,5-5', '-o', 's/parts', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const report = jsonOf(run);
    expect(
      report.results[0]?.outputs.map((output) => (output.kind === 'file' ? output.path : output.kind)),
    ).toEqual(['s/parts/book.pages-1.pdf', 's/parts/book.pages-2-3.pdf', 's/parts/book.pages-5.pdf']);
    expect(await pageLabels(await readFile(ws.path('s/parts/book.pages-2-3.pdf')))).toEqual([
      'book-2',
      'book-3',
    ]);
    expect(await pageLabels(await readFile(ws.path('s/parts/book.pages-5.pdf')))).toEqual(['book-5']);
  });

  it('writes a repeated range once and reports it for each part', async () => {
    await ws.file('s/twice.pdf', await labelledPdf('twice', 3));
    const run = await pdn(['split', 's/twice.pdf', '-r', '2,2', '-o', 's/dup', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const outputs = jsonOf(run).results[0]?.outputs ?? [];
    expect(outputs.map((output) => (output.kind === 'file' ? output.path : output.kind))).toEqual([
      's/dup/twice.pages-2.pdf',
      's/dup/twice.pages-2.pdf',
    ]);
    expect(await pageLabels(await readFile(ws.path('s/dup/twice.pages-2.pdf')))).toEqual(['twice-2']);
  });

  // Each download listened to the Ctrl-C signal and never let go: past 10, Node printed a
  // MaxListenersExceededWarning on stderr.
  it('writes 12 parts with nothing on stderr but results', async () => {
    await ws.file('s/dozen.pdf', await labelledPdf('dozen', 12));
    const ranges = Array.from({ length: 12 }, (_, i) => String(i + 1)).join(',');
    const run = await pdn(['split', 's/dozen.pdf', '-r', ranges, '-o', 's/dozen', '--quiet']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(await pageLabels(await readFile(ws.path('s/dozen/dozen.pages-12.pdf')))).toEqual(['dozen-12']);
  });

  it("reports the server's message for a range past the end", async () => {
    await ws.file('s/short.pdf', await labelledPdf('short', 2));
    const run = await pdn(['split', 's/short.pdf', '--ranges', '1,9']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/s\/short\.pdf: .*9/);
    expect(run.stderr).toMatch(/request \S+/);
  });
});

describe('pdn ocr', () => {
  it('prints the text of an image on stdout', async () => {
    const image = await ws.ocrImage('o/scan.png');
    const run = await pdn(['ocr', image]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.text.toLowerCase()).toContain('quick brown fox');
  });

  it('writes <name>.txt files with -o DIR, and reports language and confidence in --json', async () => {
    await ws.ocrImage('o/one.png');
    await ws.ocrImage('o/two.png');
    const run = await pdn(['ocr', 'o/one.png', 'o/two.png', '--language', 'eng', '-o', 'o/text', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const report = jsonOf(run);
    expect(report.results.map((item) => item.data?.language)).toEqual(['eng', 'eng']);
    const text = await readFile(ws.path('o/text/two.txt'), 'utf8');
    expect(text).toBe(report.results[1]?.data?.text);
    expect(text.toLowerCase()).toContain('quick brown fox');
  });
});

describe('pdn ocr --language', () => {
  it('an unknown code fails before any upload (exit 2), with the closest codes and `pdn languages`', async () => {
    const image = await ws.ocrImage('o/typo.png');
    const run = await pdn(['ocr', image, '--language', 'engl+deu']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/unknown OCR language "engl"; did you mean eng\b/);
    expect(run.stderr).not.toContain('"deu"');
    expect(run.stderr).toMatch(/`pdn languages` lists the \d+ codes this server accepts/);
    expect(run.stderr).toContain("Run 'pdn ocr --help' for usage.");
  });

  it('a language by its name is answered with its code, before any upload', async () => {
    const image = await ws.ocrImage('o/named.png');
    const before = (await ctx.call<{ data: { used: number } }>('/api/v1/account', { key })).json.data.used;
    const run = await pdn(['ocr', image, '--language', 'german']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/unknown OCR language "german"; did you mean deu \(German\)\?/);
    const after = (await ctx.call<{ data: { used: number } }>('/api/v1/account', { key })).json.data.used;
    expect(after).toBe(before);
  });
});

describe('pdn languages', () => {
  it("lists the server's OCR languages, eng the default", async () => {
    const run = await pdn(['languages']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.text).toMatch(/^eng .*default/m);
    const report = jsonOf(await pdn(['languages', '--json']));
    expect(report.results[0]?.data).toMatchObject({ default: 'eng' });
  });
});

describe('pdn status', () => {
  it('shows the plan and calls left, and spends none of them', async () => {
    const free = await ctx.server.createKey({ user: 'cli-status', plan: 'free' });
    const human = await pdn(['status'], { key: free });
    expect(human.code, human.stderr).toBe(0);
    expect(human.text).toMatch(/^Plan +Free \(10 calls per hour\)$/m);
    expect(human.text).toMatch(/^Left +10$/m);
    const report = jsonOf(await pdn(['status', '--json'], { key: free }));
    expect(report.results[0]?.data).toMatchObject({ plan: 'free', used: 0, remaining: 10 });
  });
});

describe('pdn config', () => {
  it('saves a key 0600 under XDG_CONFIG_HOME, never prints it whole, and uses it', async () => {
    const env = { PDN_API_KEY: '' };
    const path = (await pdn(['config', 'path'], { env })).text.trim();
    expect(path).toBe(`${ws.configHome}/pdn/config.json`);

    // `-` reads the key from stdin, so it stays out of shell history.
    const set = await pdn(['config', 'set', 'api-key', '-'], { env, stdin: Buffer.from(`${key}\n`) });
    expect(set.code, set.stderr).toBe(0);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const get = await pdn(['config', 'get'], { env });
    for (const printed of [set.text, get.text]) {
      expect(printed).not.toContain(key);
      expect(printed).toContain(`…${key.slice(-4)}`);
    }
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ api_key: key });

    // No flag, empty PDN_API_KEY: the key comes from the file.
    const run = await pdn(['languages'], { env });
    expect(run.code, run.stderr).toBe(0);

    expect((await pdn(['config', 'unset', 'api-key'], { env })).code).toBe(0);
    expect((await pdn(['languages'], { env })).code).toBe(3);
  });

  it('refuses a value that is not a key', async () => {
    const run = await pdn(['config', 'set', 'api-key', 'hunter2']);
    expect(run.code).toBe(2);
    expect(run.stderr).not.toContain('hunter2');
  });
});
