import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { photoPdf, writeFixture } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuSlots } from '../cpu-slots.js';
import { tempFolders } from '../temp-folders.js';
import { detectTools, type ToolInfo } from '../tools.js';
import { createCompressEngine } from './index.js';

// When qpdf's lossless rewrite of the input is proven: beside Ghostscript's rewrite where one of the
// server's slots is idle as it starts, else only once Ghostscript's output has lost or been refused.
// The answer is the same either way. A stand-in qpdf leaves a mark when it reads the rewrite's structure
// (its proof), and a stand-in Ghostscript waits a while for that mark before rewriting, and says whether
// it came.
const detected = await detectTools();
const { qpdf, ghostscript: gs } = detected;
const skip = qpdf === undefined || gs === undefined;
if (skip) console.warn('qpdf or Ghostscript is not installed: the order of the proofs is not tested');

let dir: string;
let input: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-proof-order-'));
  // Photos at 300 dpi: Ghostscript's output wins at `medium`, so the lossless proof is never needed.
  input = await writeFixture(dir, 'two-photos.pdf', await photoPdf({ pages: 2 }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function script(name: string, lines: string[]): Promise<ToolInfo> {
  const path = join(dir, name);
  await writeFile(path, `${['#!/bin/sh', ...lines].join('\n')}\n`);
  await chmod(path, 0o755);
  return { path, version: '' };
}

/** The stand-ins for one case: its mark, and the file where Ghostscript says whether the mark came. */
async function standIns(name: string) {
  const mark = join(dir, `${name}.proven`);
  const said = join(dir, `${name}.said`);
  const markingQpdf = await script(`${name}-qpdf`, [
    `case " $* " in *" --json "*"/qpdf.pdf "*) touch "${mark}";; esac`,
    `exec "${qpdf?.path}" "$@"`,
  ]);
  // Up to 2 s. Only the first line counts: the Ghostscript left waiting for the next call writes one too.
  const waitingGs = await script(`${name}-gs`, [
    `case " $* " in *" -sDEVICE=pdfwrite "*) ;; *) exec "${gs?.path}" "$@";; esac`,
    'i=0',
    `while [ ! -e "${mark}" ] && [ $i -lt 40 ]; do sleep 0.05; i=$((i + 1)); done`,
    `if [ -e "${mark}" ]; then echo beside >> "${said}"; else echo after >> "${said}"; fi`,
    `exec "${gs?.path}" "$@"`,
  ]);
  return { gs: { ...waitingGs, version: gs?.version ?? '' }, qpdf: markingQpdf, said };
}

// [case, { given: the server's slots (the job holds one), want: when the proof ran, the answer }]
const table: [string, { given: number; want: ['beside' | 'after', RegExp] }][] = [
  ['a slot idle', { given: 2, want: ['beside', /^ghostscript/] }],
  ['no slot idle', { given: 1, want: ['after', /^ghostscript/] }],
];

describe.skipIf(skip)("qpdf's lossless rewrite, proven", () => {
  it.each(table)('with %s', { timeout: 60_000 }, async (name, { given: slots, want: [when, method] }) => {
    const tools = await standIns(name.replaceAll(' ', '-'));
    const engine = createCompressEngine({
      choice: 'ghostscript',
      tools: { ...detected, ghostscript: tools.gs, qpdf: tools.qpdf },
      cpuSlots: new CpuSlots(slots),
      maxPages: 100,
      timeoutMs: 60_000,
      folders: tempFolders,
      log: { info: () => {}, warn: () => {} },
    });
    try {
      const workDir = await mkdtemp(join(dir, 'job-'));
      const output = await engine.compress({ path: input, label: 'two-photos.pdf' }, 'medium', {
        workDir,
        signal: new AbortController().signal,
      });
      expect(output.method).toMatch(method);
      expect((await readFile(tools.said, 'utf8')).split('\n')[0]).toBe(when);
    } finally {
      await engine.close();
    }
  });
});
