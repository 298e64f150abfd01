// The README's examples run as written from a fresh clone: its curl lines, parsed from README.md and
// run by bash against a real server (only the address differs: port 0 here), with the sample files of
// examples/, then `npx pdn compress examples/*.pdf` in the same folder, as a user goes down the page;
// the SDK README's example and the scripts of examples/ with PDN_BASE_URL exported, as a user on
// another port does (they must name no address of their own); then the hint a later start prints
// about getting a key.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDN_BIN } from '../cli/run-pdn.js';
import { SERVER_BIN } from './harness/server.js';
import { cannotOcrDocuments } from './harness/tools.js';
import { useServer } from './harness/use-server.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README_PORT = 'http://127.0.0.1:3000';
/** An example that names its server: it then misses a server on another port, whatever PDN_BASE_URL says. */
const NAMED_BASE_URL = /baseUrl:\s*['"`]http/;

/** The lines of README.md's sh blocks, comments and blank lines kept out. */
async function readmeShellLines(): Promise<string[]> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((block) =>
    (block[1] ?? '').split('\n').filter((line) => line.trim() !== ''),
  );
}

/** A fresh folder holding a copy of examples/, as a fresh clone has it. */
async function cloneLike(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pdn-readme-'));
  await cp(join(ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
  return dir;
}

const ctx = useServer();
const dirs: string[] = [];
let key = '';

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'readme', plan: 'premium' });
});
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/**
 * Runs `examples/<name>` as written, from the root of a copy of the repository's examples inside
 * the repository (so `@pdn/sdk` resolves as after `npm install`), against this suite's server.
 */
async function runExample(name: string): Promise<{ dir: string; stdout: string }> {
  const dir = await mkdtemp(join(ROOT, 'test', '.readme-'));
  dirs.push(dir);
  await cp(join(ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
  const script = join(dir, 'examples', name);
  expect(await readFile(script, 'utf8')).not.toMatch(NAMED_BASE_URL);
  const { stdout } = await run(process.execPath, [script], { cwd: dir, env: exported() });
  return { dir, stdout };
}

/** The environment of a user who exported the key and, the server being on another port, its URL. */
function exported(): NodeJS.ProcessEnv {
  return { ...process.env, PDN_API_KEY: key, PDN_BASE_URL: ctx.server.baseUrl };
}

describe('README.md', () => {
  it('every curl line works as written, and `npx pdn compress examples/*.pdf` after them', async () => {
    const lines = (await readmeShellLines()).filter((line) => /^(?:\w+=\$\()?curl /.test(line));
    expect(lines.length).toBeGreaterThanOrEqual(6);
    const dir = await cloneLike();
    dirs.push(dir);
    // One shell, so `url=$(curl ...)` reaches the next line; an `echo` after each line parts the answers.
    const script = ['set -euo pipefail', ...lines.map((line) => `${line}\necho`)]
      .join('\n')
      .replaceAll(README_PORT, ctx.server.baseUrl);
    const { stdout } = await run('bash', ['-c', script], {
      cwd: dir,
      env: { ...process.env, PDN_API_KEY: key },
    });
    const answers = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { data?: Record<string, unknown>; error?: unknown });
    expect(answers.map((answer) => answer.error)).toEqual(answers.map(() => undefined));
    const [merge, split, compress, ocr] = answers.map((answer) => answer.data ?? {});
    expect(merge).toMatchObject({ input_count: 2, page_count: 3 });
    expect(split?.parts).toHaveLength(2);
    expect(compress).toMatchObject({ filename: 'photos.compressed.pdf', page_count: 6 });
    expect(ocr?.text).toMatch(/Fluss/);
    const downloaded = await readFile(join(dir, 'examples', 'downloads', 'photos.compressed.pdf'));
    expect(downloaded.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    // The README's next pdn command, in the same folder: what the curl steps left must not fail it
    // (a download into examples/ once made it exit 1, its output already there).
    const line = (await readmeShellLines()).find((l) => l.startsWith('npx pdn compress '));
    const command = (line ?? '').replace(/\s+#.*$/, '');
    expect(command).toBe('npx pdn compress examples/*.pdf');
    await run('bash', ['-c', command.replace(/^npx pdn /, `node ${PDN_BIN} `)], {
      cwd: dir,
      env: exported(),
    });
    for (const name of ['a', 'ab', 'b', 'photos']) {
      const output = await readFile(join(dir, 'examples', `${name}.compressed.pdf`));
      expect(output.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    }
  });

  it("the SDK README's example runs in Node as written", async () => {
    const readme = await readFile(join(ROOT, 'packages', 'sdk', 'README.md'), 'utf8');
    const example = /## Example[\s\S]*?```ts\n([\s\S]*?)^```$/m.exec(readme)?.[1] ?? '';
    expect(example).toContain("from '@pdn/sdk'");
    // Inside the repository, so `@pdn/sdk` resolves to the workspace package as after `npm install`.
    expect(example).not.toMatch(NAMED_BASE_URL);
    const dir = await mkdtemp(join(ROOT, 'test', '.readme-'));
    dirs.push(dir);
    await cp(join(ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
    await writeFile(join(dir, 'example.mjs'), example);
    const { stdout } = await run(process.execPath, ['example.mjs'], { cwd: dir, env: exported() });
    expect(stdout).toContain(' bytes (');
    for (const name of ['small.pdf', 'merged.pdf', 'merged.pages-5-6.pdf']) {
      const output = await readFile(join(dir, name));
      expect(output.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    }
  });

  it('examples/jobs.mjs submits the samples as jobs and collects them, as written', async () => {
    const { dir, stdout } = await runExample('jobs.mjs');
    expect(stdout).toMatch(/^examples\/a\.pdf: job job_\S+ queued$/m);
    expect(stdout).toMatch(/^latest succeeded: (job_\S+ ?){4,5}$/m);
    for (const name of ['a', 'b', 'ab', 'photos']) {
      const output = await readFile(join(dir, 'examples', `${name}.job.pdf`));
      expect(output.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    }
  });

  it.skipIf(cannotOcrDocuments('examples/ocr-pdf.mjs'))(
    'examples/ocr-pdf.mjs makes the German sample scan searchable, as a call and a job, as written',
    { timeout: 120_000 },
    async () => {
      const { dir, stdout } = await runExample('ocr-pdf.mjs');
      expect(stdout).toMatch(/^examples\/scan\.ocr\.pdf: 1 page\(s\), ocred, /m);
      expect(stdout).toMatch(/^job job_\S+: 1 page\(s\) read, same text: true$/m);
      // German where the server's tools for documents have it, else said so and read as English.
      expect(stdout).toMatch(/, deu\)$|^German: unknown OCR language "deu"/m);
      // The image itself is read as German: its first word with its umlaut.
      expect(stdout).toMatch(/^Größere at \d+,\d+ /m);
      const pdf = await readFile(join(dir, 'examples', 'scan.ocr.pdf'));
      expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(await readFile(join(dir, 'examples', 'scan.ocr.txt'), 'utf8')).toMatch(/Fluss/);
    },
  );

  it('a later start of the server says how to get a key, and that way works in a new terminal', async () => {
    await ctx.server.restart();
    const hint = /^\s+((?:PDN_DATA_DIR=\S+ )?npx pdn-server keys create --user dev --test)$/m.exec(
      ctx.server.output,
    )?.[1];
    expect(hint, ctx.server.output).toBeDefined();
    // The server's data folder is not the default one: the line must say which, as a new terminal has
    // no PDN_DATA_DIR (nor the server's environment, which the harness's own admin() would pass on).
    expect(hint).toContain(`PDN_DATA_DIR=${ctx.server.dataDir} `);
    const terminal = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('PDN_')),
    );
    const made = await run('bash', ['-c', (hint ?? '').replace('npx pdn-server', `node ${SERVER_BIN}`)], {
      env: terminal,
    });
    const fresh = made.stdout.trim().split('\n').at(-1) ?? '';
    expect(fresh).toMatch(/^pdn_test_[0-9a-f]{32}$/);
    expect((await ctx.call('/api/v1/languages', { key: fresh })).status).toBe(200);
    expect(ctx.server.output).toContain(`${ctx.server.baseUrl}/docs`);
  });
});
