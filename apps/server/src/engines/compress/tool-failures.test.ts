import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { textPdf, writeFixture } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalError } from '../../errors.js';
import { JobQueue } from '../job-queue.js';
import { detectTools, type ToolInfo } from '../tools.js';
import { createCompressEngine } from './index.js';

// Stand-ins for a Ghostscript that misbehaves on a good file: the engine must answer InternalError
// (a 500, logged), never a success and never an unclassified error (issue #3).
const { qpdf } = await detectTools();
if (qpdf === undefined) console.warn('qpdf is not installed: the Ghostscript failure tests are skipped');

let dir: string;
let input: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-gs-fail-'));
  input = await writeFixture(dir, 'three-pages.pdf', await textPdf({ pages: 3 }));
  await writeFixture(dir, 'one-page.pdf', await textPdf({ pages: 1 }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A shell script standing in for `gs`. */
async function fakeGs(name: string, body: string): Promise<ToolInfo> {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return { path, version: '10.00.0' };
}

describe.skipIf(qpdf === undefined)('Ghostscript failing on a good file', () => {
  // [name, script body given the test folder, message fragment]
  const cases: [string, (folder: string) => string, RegExp][] = [
    ['exits non-zero', () => 'echo "Segmentation fault" >&2; exit 139', /Ghostscript exited with 139/],
    ['exits 0 without writing', () => 'exit 0', /wrote no output/],
    [
      'writes a blank one-page PDF, as gs 10.0 does for unreadable input',
      (folder) =>
        `for a in "$@"; do case "$a" in -sOutputFile=*) cp "${folder}/one-page.pdf" "\${a#-sOutputFile=}";; esac; done`,
      /has 1 pages, expected 3/,
    ],
  ];
  it.each(cases)('%s: InternalError', { timeout: 60_000 }, async (name, body, message) => {
    const gs = await fakeGs(`gs-${name.replaceAll(/\W/g, '-')}`, body(dir));
    const engine = createCompressEngine({
      choice: 'ghostscript',
      tools: { ghostscript: gs, ...(qpdf === undefined ? {} : { qpdf }) },
      queue: new JobQueue(1),
      maxPages: 100,
      timeoutMs: 60_000,
      log: { info: () => {}, warn: () => {} },
    });
    const workDir = await mkdtemp(join(dir, 'job-'));
    const result = engine.compress({ path: input, label: 'good.pdf' }, 'medium', {
      workDir,
      signal: new AbortController().signal,
    });
    await expect(result).rejects.toBeInstanceOf(InternalError);
    await expect(result).rejects.toThrow(message);
  });
});
