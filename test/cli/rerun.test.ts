// Running a batch again: `--skip-existing` does only what is left, and `pdn compress
// *.pdf` never re-compresses pdn's own outputs, which the shell hands it with the originals.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { labelledPdf } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { useServer } from '../src/harness/use-server.js';
import { exportedPdn, jsonOf } from './run-pdn.js';
import { useWorkspace } from './workspace.js';

const ctx = useServer();
const ws = useWorkspace();
let key: string;

const pdn = exportedPdn(ws, () => ({ key, baseUrl: ctx.server.baseUrl }));

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'rerunner', plan: 'enterprise' });
});

describe('--skip-existing', () => {
  it('does only the inputs whose output is missing, and leaves the others untouched', async () => {
    for (const name of ['a', 'b', 'c']) await ws.file(`skip/${name}.pdf`, await labelledPdf(name, 1));
    await writeFile(ws.path('skip/a.compressed.pdf'), 'from the last run');
    const run = await pdn([
      'compress',
      'skip/a.pdf',
      'skip/b.pdf',
      'skip/c.pdf',
      '--skip-existing',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = jsonOf(run);
    expect(report.summary).toEqual({ total: 3, succeeded: 2, failed: 0, not_processed: 0, skipped: 1 });
    expect(report.results[0]).toMatchObject({
      input: 'skip/a.pdf',
      status: 'skipped',
      skip_reason: 'output_exists',
      outputs: [{ kind: 'file', path: 'skip/a.compressed.pdf', bytes: 17 }],
    });
    expect(await readFile(ws.path('skip/a.compressed.pdf'), 'utf8')).toBe('from the last run');
    expect((await stat(ws.path('skip/c.compressed.pdf'))).size).toBeGreaterThan(0);

    // Everything is there now: nothing is sent, and a person is told why.
    const again = await pdn(['compress', 'skip/a.pdf', 'skip/b.pdf', 'skip/c.pdf', '--skip-existing']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.text).toBe('');
    expect(again.stderr).toContain('- skip/b.pdf: skipped, skip/b.compressed.pdf exists (--skip-existing)');
    expect(again.stderr).toContain('0 succeeded, 0 failed, 3 skipped');
  });

  it('merge and ocr skip an existing output too', async () => {
    const a = await ws.file('skip-m/a.pdf', await labelledPdf('a', 1));
    const b = await ws.file('skip-m/b.pdf', await labelledPdf('b', 1));
    await writeFile(ws.path('skip-m/ab.pdf'), 'merged before');
    const merge = await pdn(['merge', a, b, '-o', 'skip-m/ab.pdf', '--skip-existing', '--json']);
    expect(merge.code, merge.stderr).toBe(0);
    expect(jsonOf(merge).results[0]).toMatchObject({ status: 'skipped', skip_reason: 'output_exists' });
    expect(await readFile(ws.path('skip-m/ab.pdf'), 'utf8')).toBe('merged before');

    await ws.ocrImage('skip-o/one.png');
    await ws.ocrImage('skip-o/two.png');
    await ws.file('skip-o/text/one.txt', new TextEncoder().encode('read before'));
    const ocr = await pdn([
      'ocr',
      'skip-o/one.png',
      'skip-o/two.png',
      '-o',
      'skip-o/text',
      '--skip-existing',
      '--json',
    ]);
    expect(ocr.code, ocr.stderr).toBe(0);
    expect(jsonOf(ocr).results.map((item) => item.status)).toEqual(['skipped', 'succeeded']);
    expect(await readFile(ws.path('skip-o/text/one.txt'), 'utf8')).toBe('read before');
  });

  it('is refused with --force, its opposite', async () => {
    const run = await pdn(['compress', 'x.pdf', '--skip-existing', '--force']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--skip-existing.*cannot be used with.*--force/);
  });
});

describe("pdn's own outputs as inputs", () => {
  beforeAll(async () => {
    await ws.file('own/report.pdf', await labelledPdf('report', 1));
    await ws.file('own/report.compressed.pdf', await labelledPdf('old', 1));
    await ws.file('own/book.pages-1-2.pdf', await labelledPdf('part', 2));
  });

  // What `pdn compress own/*.pdf` receives from the shell.
  const glob = ['own/book.pages-1-2.pdf', 'own/report.compressed.pdf', 'own/report.pdf'];

  it('are left out of several inputs with a notice, and cost no call', async () => {
    const run = await pdn(['compress', ...glob, '-o', 'own-out', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const report = jsonOf(run);
    expect(report.results.map((item) => [item.input, item.status, item.skip_reason ?? null])).toEqual([
      ['own/book.pages-1-2.pdf', 'skipped', 'pdn_output'],
      ['own/report.compressed.pdf', 'skipped', 'pdn_output'],
      ['own/report.pdf', 'succeeded', null],
    ]);
    const human = await pdn(['compress', ...glob, '-o', 'own-human', '--verbose']);
    expect(human.code, human.stderr).toBe(0);
    // --verbose names the request of each file sent: one.
    expect(human.stderr.match(/: request \S+/g)).toHaveLength(1);
    expect(human.stderr).toContain(
      "- own/report.compressed.pdf: skipped, named like pdn's own output (name it alone, or pass --include-outputs)",
    );
    await expect(stat(ws.path('own-human/report.compressed.compressed.pdf'))).rejects.toThrow();
  });

  it('are taken when named alone, or with --include-outputs', async () => {
    const alone = await pdn(['compress', 'own/report.compressed.pdf', '-o', 'own-alone', '--json']);
    expect(alone.code, alone.stderr).toBe(0);
    expect(jsonOf(alone).results[0]?.status).toBe('succeeded');

    const included = await pdn(['compress', ...glob, '-o', 'own-all', '--include-outputs', '--json']);
    expect(included.code, included.stderr).toBe(0);
    expect(jsonOf(included).summary).toMatchObject({ succeeded: 3, skipped: 0 });
  });
});
