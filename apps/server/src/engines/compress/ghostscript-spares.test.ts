import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../run-tool.js';
import { detectTools } from '../tools.js';
import type { WorkFolders } from '../types.js';
import { GhostscriptSpares } from './ghostscript-spares.js';
import { ghostscriptArgs, hasLegacyInterpreter, type PdfInterpreter, pdfwriteArgs } from './presets.js';
import { pdfwriteGhostscripts } from './test-ghostscripts.js';

const CORPUS = new URL('../../../../../packages/fixtures/corpus/', import.meta.url).pathname;
const tools = await detectTools();
const { ghostscript: gs, qpdf } = tools;

let dir: string;
/** The spares' folders, each remembered, in this test's folder. */
const made: string[] = [];
const folders: WorkFolders = {
  create: async (prefix) => {
    const folder = await mkdtemp(join(dir, prefix));
    made.push(folder);
    return folder;
  },
  remove: (folder) => rm(folder, { recursive: true, force: true }),
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-gs-spares-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What a rewrite holds, without what differs from run to run: its IDs and dates. */
async function contentOf(path: string): Promise<string> {
  const expanded = `${path}.qdf`;
  if (qpdf === undefined) throw new Error('qpdf is needed to compare rewrites');
  await runTool(qpdf.path, ['--qdf', '--object-streams=disable', path, expanded], {
    cwd: dir,
    timeoutMs: 30_000,
  });
  return (await readFile(expanded, 'latin1'))
    .replace(/uuid:[0-9a-f-]+/g, 'uuid')
    .replace(/\/ID \[<[^\]]*\]/g, '/ID')
    .replace(/\d{14}[+Z][^)<]*/g, 'date')
    .replace(/\d{4}-\d\d-\d\dT[\d:]+Z/g, 'date');
}

/** The Ghostscripts working or waiting in this test's folders: pids, by folder. */
async function waitingGhostscripts(): Promise<Map<string, number>> {
  const running = await pdfwriteGhostscripts();
  return new Map(running.filter(({ cwd }) => cwd.startsWith(dir)).map(({ cwd, pid }) => [cwd, pid]));
}

/** Resolves once `holds` does, or after 5 s: processes end and folders go just after a run's answer. */
async function until(holds: () => boolean | Promise<boolean>): Promise<void> {
  for (let tries = 0; !(await holds()) && tries < 100; tries += 1)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

async function rewrite(
  spares: GhostscriptSpares,
  file: string,
  pageCount: number,
  options: { interpreter?: PdfInterpreter; timeoutMs?: number } = {},
) {
  const interpreter = options.interpreter ?? 'default';
  const inputPath = join(CORPUS, file);
  const outputPath = join(dir, `spare-${file}`);
  const result = await spares.rewrite(
    {
      args: pdfwriteArgs('medium', interpreter),
      inputPath,
      pageCount,
      outputPath,
      asked: ghostscriptArgs('medium', inputPath, outputPath, interpreter, pageCount),
    },
    { timeoutMs: options.timeoutMs ?? 60_000 },
  );
  return { result, outputPath };
}

describe.skipIf(gs === undefined || qpdf === undefined || !existsSync('/proc'))(
  'Ghostscript started ahead of a call',
  () => {
    const ghostscript = gs?.path ?? 'gs';
    const opened: GhostscriptSpares[] = [];
    const newSpares = () => {
      const spares = new GhostscriptSpares(ghostscript, folders);
      opened.push(spares);
      return spares;
    };
    // A test that failed half-way leaves none waiting for the next to count.
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((spares) => spares.close()));
    });

    it('writes what the command line writes, document after document', { timeout: 120_000 }, async () => {
      const spares = newSpares();
      // Outlines and links: what a process that had written another document first numbered wrongly.
      const files: [string, number][] = [
        ['nested-outline.pdf', 9],
        ['pdflatex-outline.pdf', 4],
        ['quartz-link-linearized.pdf', 2],
        ['pdftk-itext-outline.pdf', 2],
        ['openoffice-page-sizes.pdf', 3],
      ];
      for (const [file, pages] of files) {
        const { result, outputPath } = await rewrite(spares, file, pages);
        expect(result.exitCode).toBe(0);
        const alone = join(dir, `alone-${file}`);
        const args = ghostscriptArgs('medium', join(CORPUS, file), alone, 'default', pages);
        await runTool(ghostscript, args, { cwd: dir, timeoutMs: 60_000 });
        expect(await contentOf(outputPath), file).toBe(await contentOf(alone));
      }
    });

    it('hands a rewrite to the Ghostscript that waited, and starts the next', {
      timeout: 60_000,
    }, async () => {
      const spares = newSpares();
      await rewrite(spares, 'libreoffice-writer.pdf', 1);
      await until(async () => (await waitingGhostscripts()).size === 1);
      const waiting = await waitingGhostscripts();
      expect(waiting.size).toBe(1);
      const [[folder, pid]] = [...waiting];
      const { result } = await rewrite(spares, 'libreoffice-writer.pdf', 1);
      expect(result.exitCode).toBe(0);
      // It ran the second rewrite and ended; its folder went with it.
      expect(() => process.kill(pid as number, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
      await until(() => !existsSync(folder as string));
      expect(existsSync(folder as string)).toBe(false);
    });

    it('counts the time limit from the handover, not from the start', { timeout: 60_000 }, async () => {
      const spares = newSpares();
      await rewrite(spares, 'libreoffice-writer.pdf', 1);
      // The next one has waited longer than the limit the rewrite is given.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const { result } = await rewrite(spares, 'libreoffice-writer.pdf', 1, { timeoutMs: 1_000 });
      expect(result.exitCode).toBe(0);
    });

    it('lets a Ghostscript killed while it waited go at once, folder and all', {
      timeout: 60_000,
    }, async () => {
      const spares = newSpares();
      await rewrite(spares, 'libreoffice-writer.pdf', 1);
      await until(async () => (await waitingGhostscripts()).size === 1);
      const [[folder, pid]] = [...(await waitingGhostscripts())];
      process.kill(pid as number, 'SIGKILL');
      await until(() => !existsSync(folder as string));
      expect(existsSync(folder as string)).toBe(false);
      // The next call starts its own, and the one after finds a spare again.
      expect((await rewrite(spares, 'libreoffice-writer.pdf', 1)).result.exitCode).toBe(0);
      await until(async () => (await waitingGhostscripts()).size === 1);
      expect((await waitingGhostscripts()).size).toBe(1);
    });

    it.skipIf(!hasLegacyInterpreter(gs?.version ?? ''))(
      "keeps the legacy interpreter to the pages inspection found, not the root's /Count",
      { timeout: 60_000 },
      async () => {
        // A root /Count of 9999999999 over one page: the legacy interpreter, told nothing, looks for
        // each of them until it is stopped.
        const spares = newSpares();
        const { result } = await rewrite(spares, 'page-count-lie.pdf', 1, {
          interpreter: 'legacy',
          timeoutMs: 20_000,
        });
        expect(result.exitCode).toBe(0);
      },
    );

    it('ends the Ghostscripts that wait, and removes their folders, when closed', {
      timeout: 60_000,
    }, async () => {
      const spares = newSpares();
      await rewrite(spares, 'libreoffice-writer.pdf', 1);
      await rewrite(spares, 'libreoffice-writer.pdf', 1, { interpreter: 'legacy' });
      await until(async () => (await waitingGhostscripts()).size === 2);
      expect((await waitingGhostscripts()).size).toBe(2);
      await spares.close();
      await until(async () => (await waitingGhostscripts()).size === 0);
      expect((await waitingGhostscripts()).size).toBe(0);
      await until(() => !made.some(existsSync));
      expect(made.filter(existsSync)).toEqual([]);
    });
  },
);
