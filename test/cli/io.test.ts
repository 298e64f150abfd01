// Pipes and terminals: `-` reads stdin, `-o -` writes the single output to stdout, and
// nothing but results reach stdout; colour is off for NO_COLOR, a pipe and --json; no spinner when
// stderr is not a terminal.
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { labelledPdf, pageLabels } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { pageCount } from '../src/harness/download.js';
import { useServer } from '../src/harness/use-server.js';
import { exportedPdn, jsonOf, PDN_BIN } from './run-pdn.js';
import { OCR_ENG_PNG, useWorkspace } from './workspace.js';

const ctx = useServer();
const ws = useWorkspace();
let key: string;

const pdn = exportedPdn(ws, () => ({ key, baseUrl: ctx.server.baseUrl }));

const ESC = '\u001b[';

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'piper', plan: 'enterprise' });
});

describe('stdin and stdout', () => {
  it('cat a.pdf | pdn compress - -o - > b.pdf', async () => {
    const run = await pdn(['compress', '-', '-o', '-'], { stdin: await labelledPdf('pipe', 3) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    // The human line moved to stderr so stdout is the PDF alone.
    expect(run.stderr).toMatch(/stdin → stdout/);
    expect(await pageCount(run.stdout)).toBe(3);
  });

  it('merges stdin with a file, in argument order, to stdout', async () => {
    const second = await ws.file('second.pdf', await labelledPdf('file', 1));
    const run = await pdn(['merge', '-', second, '-o', '-', '--quiet'], {
      stdin: await labelledPdf('stdin', 2),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(await pageLabels(run.stdout)).toEqual(['stdin-1', 'stdin-2', 'file-1']);
  });

  it('splits stdin into stdin.pages-<range>.pdf', async () => {
    const run = await pdn(['split', '-', '-r', '2', '-o', 'from-stdin'], {
      stdin: await labelledPdf('s', 2),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(await pageLabels(await readFile(ws.path('from-stdin/stdin.pages-2.pdf')))).toEqual(['s-2']);
  });

  it('reads an image from stdin for OCR', async () => {
    const run = await pdn(['ocr', '-'], { stdin: await readFile(OCR_ENG_PNG) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.text.toLowerCase()).toContain('lazy dog');
  });

  it('refuses - twice, and empty stdin', async () => {
    expect((await pdn(['merge', '-', '-', '-o', 'x.pdf'])).code).toBe(2);
    const empty = await pdn(['compress', '-', '-o', '-']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('stdin (-) is empty');
  });

  it('--json prints exactly one JSON document on stdout and nothing else', async () => {
    const file = await ws.file('j.pdf', await labelledPdf('j', 1));
    const run = await pdn(['compress', file, '-o', 'json-out/', '--json', '--verbose']);
    expect(run.code, run.stderr).toBe(0);
    expect(jsonOf(run).summary.succeeded).toBe(1);
    expect(run.text.trim().startsWith('{')).toBe(true);
    // --verbose detail goes to stderr, never into the JSON.
    expect(run.stderr).toMatch(/request \S+/);
  });
});

describe('colour and progress', () => {
  async function humanRun(name: string, env: Record<string, string>, extra: string[] = []) {
    const file = await ws.file(`${name}.pdf`, await labelledPdf(name, 1));
    return pdn(['compress', file, '-o', `colour-${name}/`, ...extra], { env });
  }

  it('FORCE_COLOR turns colour on for a pipe (so the next checks mean something)', async () => {
    const run = await humanRun('forced', { FORCE_COLOR: '1' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.text).toContain(ESC);
  });

  it('NO_COLOR wins over FORCE_COLOR', async () => {
    const run = await humanRun('nocolor', { FORCE_COLOR: '1', NO_COLOR: '1' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.text).not.toContain(ESC);
    expect(run.stderr).not.toContain(ESC);
  });

  it('--json is never coloured', async () => {
    const run = await humanRun('json', { FORCE_COLOR: '1' }, ['--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.text).not.toContain(ESC);
  });

  it('a pipe gets no colour and no spinner', async () => {
    const run = await humanRun('plain', {});
    expect(run.code, run.stderr).toBe(0);
    expect(run.text).not.toContain(ESC);
    expect(run.stderr).toBe('');
  });
});

describe('a batch on pipes', () => {
  /** `pdn compress` on ten files at -c 1, stdout and stderr pipes, watched as it runs. */
  async function startBatch(folder: string) {
    const files: string[] = [];
    for (let i = 0; i < 10; i++) {
      files.push(`${folder}/doc${i}.pdf`);
      await ws.file(`${folder}/doc${i}.pdf`, await labelledPdf(`${folder}${i}`, 2));
    }
    const child = spawn(process.execPath, [PDN_BIN, 'compress', ...files, '-o', `${folder}-out`, '-c', '1'], {
      cwd: ws.dir,
      env: { PATH: process.env.PATH ?? '', PDN_API_KEY: key, PDN_BASE_URL: ctx.server.baseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const firstLine = new Promise<void>((resolve) => {
      child.stdout.on('data', () => {
        if (stdout.includes('\n')) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    return { child, firstLine, exited, out: () => stdout, err: () => stderr };
  }

  it("prints each file's line as it finishes, not all at the end", async () => {
    const run = await startBatch('stream');
    await run.firstLine;
    // The first file's line is out while the other nine are still to do.
    expect(run.child.exitCode).toBeNull();
    expect(run.out()).toMatch(/^✔ stream\/doc0\.pdf → /);
    expect(await run.exited).toBe(0);
    expect(run.out().match(/^✔ /gm)).toHaveLength(10);
  });

  it('SIGINT (Ctrl-C without a terminal) mid-batch: the report prints, exit 130', async () => {
    const run = await startBatch('sigint');
    await run.firstLine;
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.err()).toMatch(/- sigint\/doc\d\.pdf: not processed \(interrupted\)/);
    expect(run.err()).toMatch(/\d+ succeeded, \d+ failed, \d+ not processed/);
    const done = [...run.out().matchAll(/✔ sigint\/(doc\d)\.pdf/g)].map(
      (match) => `${match[1]}.compressed.pdf`,
    );
    expect((await readdir(ws.path('sigint-out'))).sort()).toEqual(done.sort());
  });
});
