import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { photoPdf, textPdf, writeFixture } from '@pdn/fixtures';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalError } from '../../errors.js';
import { CpuSlots } from '../cpu-slots.js';
import { tempFolders } from '../temp-folders.js';
import { detectTools, type ToolInfo } from '../tools.js';
import { createCompressEngine } from './index.js';

// Stand-ins for a Ghostscript whose rewrite (pdfwrite) misbehaves on a good file; every other run (the
// content check's renders) goes to the real one. A rewrite that fails, or admits a loss, or
// loses content silently is never the answer. The next candidate is (here qpdf's lossless rewrite),
// and the refusal is logged; so is a rewrite out of time. A Ghostscript that cannot even start is the
// operator's problem: a 500.
const { qpdf, ghostscript: realGs } = await detectTools();
const skip = qpdf === undefined || realGs === undefined;
if (skip) console.warn('qpdf or Ghostscript is not installed: the Ghostscript failure tests are skipped');

let dir: string;
let input: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-gs-fail-'));
  // Photos at 300 dpi: both interpreters shrink them at `medium`, so the legacy one's output can win.
  input = await writeFixture(dir, 'two-photos.pdf', await photoPdf({ pages: 2 }));
  await writeFixture(dir, 'one-page.pdf', await textPdf({ pages: 1 }));
  const blank = await PDFDocument.create();
  for (let page = 0; page < 2; page += 1) blank.addPage([612, 792]);
  await writeFixture(dir, 'two-blank-pages.pdf', await blank.save());
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A shell script standing in for `gs`: `pdfwrite` runs `body` (with $out set), anything else runs gs. */
async function fakeGs(name: string, body: string, version: string): Promise<ToolInfo> {
  const path = join(dir, name);
  const script = [
    '#!/bin/sh',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template.
    'for a in "$@"; do case "$a" in -sOutputFile=*) out="${a#-sOutputFile=}";; esac; done',
    `case " $* " in *" -sDEVICE=pdfwrite "*) ;; *) exec "${realGs?.path}" "$@";; esac`,
    body,
  ];
  await writeFile(path, `${script.join('\n')}\n`);
  await chmod(path, 0o755);
  return { path, version };
}

const GS_10_00 = '10.00.0';
const GS_WITHOUT_LEGACY = '10.02.0';
const admitsLoss = `echo '   **** Error: Page drawing error occurred.'; echo '               Output may be incorrect.'`;

// [name, { given: script body and Ghostscript version, want: method answered and the refusal logged }]
const table: [string, { given: [(folder: string) => string, string]; want: [string, RegExp] }][] = [
  [
    'exits non-zero',
    { given: [() => 'echo "Segmentation fault" >&2; exit 139', GS_10_00], want: ['qpdf', /exited with 139/] },
  ],
  ['exits 0 without writing', { given: [() => 'exit 0', GS_10_00], want: ['qpdf', /wrote no output/] }],
  [
    'writes a blank one-page PDF, as gs 10.0 does for unreadable input',
    {
      given: [(folder) => `cp "${folder}/one-page.pdf" "$out"`, GS_10_00],
      want: ['qpdf', /has 1 pages?, expected 2/],
    },
  ],
  [
    'writes as many pages as the input, all blank',
    {
      given: [(folder) => `cp "${folder}/two-blank-pages.pdf" "$out"`, GS_10_00],
      want: ['qpdf', /page \d differs from the input: .* dB PSNR/],
    },
  ],
  [
    'says "Output may be incorrect" but exits 0 with a good file: the legacy interpreter is tried',
    {
      given: [
        () => `case " $* " in *" -dNEWPDF=false "*) ;; *) ${admitsLoss};; esac; exec "${realGs?.path}" "$@"`,
        GS_10_00,
      ],
      want: ['ghostscript', /Page drawing error occurred. Output may be incorrect/],
    },
  ],
  [
    'says "Output may be incorrect" where there is no legacy interpreter',
    {
      given: [() => `${admitsLoss}; exec "${realGs?.path}" "$@"`, GS_WITHOUT_LEGACY],
      want: ['qpdf', /Output may be incorrect/],
    },
  ],
];

function engineWith(gs: ToolInfo, options: { qpdf?: ToolInfo; timeoutMs?: number } = {}) {
  const chosenQpdf = options.qpdf ?? qpdf;
  return createCompressEngine({
    choice: 'ghostscript',
    tools: { ghostscript: gs, ...(chosenQpdf === undefined ? {} : { qpdf: chosenQpdf }) },
    cpuSlots: new CpuSlots(1),
    maxPages: 100,
    timeoutMs: options.timeoutMs ?? 60_000,
    folders: tempFolders,
    log: { info: () => {}, warn: () => {} },
  });
}

/** A shell script standing in for `qpdf`: its lossless rewrite runs `body`, anything else runs qpdf. */
async function fakeQpdf(name: string, body: string): Promise<ToolInfo> {
  const path = join(dir, name);
  const script = [
    '#!/bin/sh',
    `case " $* " in *" --object-streams=generate "*) ;; *) exec "${qpdf?.path}" "$@";; esac`,
    body,
  ];
  await writeFile(path, `${script.join('\n')}\n`);
  await chmod(path, 0o755);
  return { path, version: qpdf?.version ?? '' };
}

/** Compresses the two photos at `medium`, returning the answer and the warnings logged. */
async function compressWith(engine: ReturnType<typeof engineWith>) {
  const warnings: string[] = [];
  const log = {
    info: () => {},
    warn: (message: string, fields?: object) => warnings.push(`${message} ${JSON.stringify(fields)}`),
  };
  const workDir = await mkdtemp(join(dir, 'job-'));
  const output = await engine.compress({ path: input, label: 'good.pdf' }, 'medium', {
    workDir,
    signal: new AbortController().signal,
    log,
  });
  // Whatever went wrong, the answer holds the input's pages.
  expect((await PDFDocument.load(await readFile(output.path))).getPageCount()).toBe(2);
  return { output, warnings: warnings.join('\n') };
}

describe.skipIf(skip)('Ghostscript failing on a good file', () => {
  it.each(table)(
    '%s',
    { timeout: 120_000 },
    async (name, { given: [body, version], want: [method, logged] }) => {
      const gs = await fakeGs(`gs-${name.replaceAll(/\W+/g, '-')}`, body(dir), version);
      const { output, warnings } = await compressWith(engineWith(gs));
      expect(output.method).toMatch(new RegExp(`^${method}`));
      expect(warnings).toMatch(logged);
    },
  );

  // A rewrite that never ends (a real 3.7 MB font sample took Ghostscript past its 120 s) is one
  // candidate fewer, not a 500 that a retry would meet again: qpdf's rewrite or the original answers.
  it('goes on to qpdf when the rewrites take more than their share of the time', {
    timeout: 60_000,
  }, async () => {
    const gs = await fakeGs('gs-never-ends', 'exec sleep 600', GS_10_00);
    const { output, warnings } = await compressWith(engineWith(gs, { timeoutMs: 5000 }));
    expect(output.method).toBe('qpdf');
    expect(warnings).toMatch(/Ghostscript's rewrites took more than their 5 s/);
    // Cut after the first rewrite: the other interpreter and the milder preset are not tried.
    expect(warnings.match(/"method":"ghostscript"/g)).toHaveLength(1);
  });

  // qpdf's rewrite, made first, is cut by the tool time limit, the rewrites by their share of the call:
  // the call's own end (twice the limit) is not reached, and the answer is the original.
  it('answers the original when qpdf and the rewrites all run out of time', { timeout: 60_000 }, async () => {
    const gs = await fakeGs('gs-never-ends-either', 'exec sleep 600', GS_10_00);
    const slowQpdf = await fakeQpdf('qpdf-never-ends', 'exec sleep 600');
    const { output, warnings } = await compressWith(engineWith(gs, { qpdf: slowQpdf, timeoutMs: 1500 }));
    expect(output.method).toBe('original');
    expect(warnings).toMatch(/"method":"qpdf","reason":"qpdf did not finish within 1.5 s"/);
    expect(warnings).toMatch(/Ghostscript's rewrites took more than their 1.5 s/);
  });

  it('answers InternalError when Ghostscript cannot be started at all', { timeout: 60_000 }, async () => {
    const engine = engineWith({ path: join(dir, 'no-such-gs'), version: GS_10_00 });
    const workDir = await mkdtemp(join(dir, 'job-'));
    const result = engine.compress({ path: input, label: 'good.pdf' }, 'medium', {
      workDir,
      signal: new AbortController().signal,
    });
    await expect(result).rejects.toBeInstanceOf(InternalError);
    await expect(result).rejects.toThrow(/Ghostscript failed to run/);
  });
});
