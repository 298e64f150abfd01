// A server killed with SIGKILL in the middle of a job (no handler of its own runs) takes every tool
// process with it: Ghostscript in a compress, OCRmyPDF with the tesseract and Ghostscript runs it
// started itself, which are not the server's children, and Chromium with its renderers. Seen from outside, as an operator would: every
// process working under the server's data folder while the job ran (by its working folder or command
// line), and everything in their process groups, is gone soon after; nothing under the data folder
// runs. Its work area stays until a live process of the deployment reclaims it, here one started
// afterwards on another data folder: processes of one machine share a temp folder, where each names
// its work area.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { embeddedFontPdf, HTML_ASSETS, scannedDocumentPdf } from '@pdn/fixtures';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { browserMissing } from './harness/browser.js';
import { file, form } from './harness/form.js';
import { parentOf, processesInGroups, processesUnder, type ToolProcess } from './harness/processes.js';
import { startServer, type TestServer } from './harness/server.js';
import { missing } from './harness/tools.js';

let sharedTemp = '';
const servers: TestServer[] = [];

beforeEach(async () => {
  sharedTemp = await mkdtemp(join(tmpdir(), 'pdn-e2e-killed-tmp-'));
});

afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
  await rm(sharedTemp, { recursive: true, force: true });
});

async function start(env: Record<string, string>): Promise<TestServer> {
  const server = await startServer({ env: { ...env, TMPDIR: sharedTemp } });
  servers.push(server);
  return server;
}

/** Looks until `seen` holds of the processes working under the server's data folder; answers them. */
async function whileRunning(
  server: TestServer,
  seen: (tools: ToolProcess[]) => boolean,
): Promise<ToolProcess[]> {
  for (let tries = 0; tries < 1200; tries += 1) {
    const tools = await processesUnder(server.dataDir);
    if (seen(tools)) return tools;
    if (server.exit !== undefined) throw new Error(`the server ended: ${server.exit}`);
    await sleep(25);
  }
  throw new Error(`never saw the tools wanted under ${server.dataDir}`);
}

/**
 * Killed tools are gone within milliseconds; a tool left running would work on for seconds to minutes
 * (the Ghostscript and OCRmyPDF runs here take 5-20 s). So what still runs this long after the kill
 * survived it.
 */
const SURVIVAL_MS = 3_000;

/** What still runs of `tools` (by pid or process group) or under `folder`, once none does or SURVIVAL_MS passed. */
async function survivors(tools: ToolProcess[], folder: string): Promise<string[]> {
  const groups = new Set(tools.map((tool) => tool.group));
  const look = async () =>
    [...(await processesInGroups(groups)), ...(await processesUnder(folder))].map(
      (tool) => `${tool.pid} (group ${tool.group}): ${tool.command}`,
    );
  const deadline = Date.now() + SURVIVAL_MS;
  let left = await look();
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(25);
    left = await look();
  }
  return left;
}

/**
 * Starts `body` on `path` without waiting for the answer (the server will not give one), waits until
 * `seen` holds of its tools, kills the server with SIGKILL, and checks no tool survives. Answers the
 * tools that ran and the pid the server had.
 */
async function killMidJob(
  server: TestServer,
  path: string,
  body: FormData,
  seen: (tools: ToolProcess[]) => boolean,
): Promise<{ tools: ToolProcess[]; pid: number }> {
  const key = await server.createKey({ user: 'killed', plan: 'enterprise' });
  const serverPid = server.pid;
  fetch(server.url(path), { method: 'POST', headers: { authorization: `Bearer ${key}` }, body }).catch(
    () => undefined,
  );
  const tools = await whileRunning(server, seen);
  const grandparents = await Promise.all(tools.map((tool) => parentOf(tool.parent)));
  expect(await server.signal('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
  expect(await survivors(tools, server.dataDir), JSON.stringify(tools, null, 1)).toEqual([]);
  // The tools seen were the server's, not some other process's: started by the server itself, or by
  // its tool launcher, a child of the server.
  expect(tools.some((tool, i) => tool.parent === serverPid || grandparents[i] === serverPid)).toBe(true);
  return { tools, pid: serverPid };
}

/** The work areas in a data folder: `<pid>-<start time>` of the processes that made them. */
function workAreas(server: TestServer): Promise<string[]> {
  return readdir(join(server.dataDir, 'tmp-processes')).catch(() => []);
}

describe.skipIf(missing('ghostscript', 'a server killed in the middle of a compress'))(
  'a server killed with SIGKILL in the middle of a compress',
  () => {
    it('leaves no Ghostscript running, and its work area is reclaimed from another data folder', async () => {
      const killed = await start({ PDN_COMPRESS_ENGINE: 'ghostscript' });
      const { pid } = await killMidJob(
        killed,
        '/api/v1/compress',
        form(file('file', await embeddedFontPdf({ pages: 120 }), 'fonts.pdf')),
        (running) => running.some((tool) => tool.command.includes('-sDEVICE=pdfwrite')),
      );
      // Left behind by the dead process, until a live one reclaims it.
      const areas = await workAreas(killed);
      expect(areas).toEqual([expect.stringMatching(new RegExp(`^${pid}-\\d+$`))]);

      const other = await start({});
      expect(other.dataDir).not.toBe(killed.dataDir);
      expect(await workAreas(killed)).toEqual([]);
    });
  },
);

describe.skipIf(missing('ocrmypdf', 'a server killed in the middle of OCRmyPDF'))(
  'a server killed with SIGKILL in the middle of OCRmyPDF',
  () => {
    it('leaves neither OCRmyPDF nor the tesseract runs it started running', async () => {
      const killed = await start({ PDN_OCR_PDF_ENGINE: 'ocrmypdf', PDN_JOB_CONCURRENCY: '2' });
      const scan = await scannedDocumentPdf({ pages: 6, seed: 7, dpi: 300, blocks: 12 });
      const { tools } = await killMidJob(
        killed,
        '/api/v1/ocr/pdf',
        form(file('file', scan.bytes, 'scan.pdf')),
        // OCRmyPDF's own children at work: tesseract runs, not started by the server.
        (running) => running.some((tool) => /(^|\/)tesseract /.test(tool.command)),
      );
      // The tesseract runs were OCRmyPDF's children, which the kernel's parent-death signal alone
      // would have left running.
      const ocrmypdf = tools.find((tool) => tool.command.includes('ocrmypdf'));
      expect(ocrmypdf).toBeDefined();
      expect(
        tools.some((tool) => /(^|\/)tesseract /.test(tool.command) && tool.parent === ocrmypdf?.pid),
      ).toBe(true);
      expect(await workAreas(killed)).toHaveLength(1);

      await start({});
      expect(await workAreas(killed)).toEqual([]);
    });
  },
);

describe.skipIf(browserMissing !== undefined)('a server killed with SIGKILL in the middle of a print', () => {
  it('leaves no Chromium running, its renderer busy with a script that never returns', async () => {
    const killed = await start({});
    const key = await killed.createKey({ user: 'killed', plan: 'enterprise' });
    const serverPid = killed.pid;
    const page = await readFile(join(HTML_ASSETS, 'hostile', 'script-loop.html'));
    const body = form(file('html', page, 'loop.html'), { name: 'javascript', value: 'true' });
    fetch(killed.url('/api/v1/html-to-pdf'), {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body,
    }).catch(() => undefined);
    // The browser names its profile, in the server's work area, on its command line; its renderer spins.
    let browser: ToolProcess[] = [];
    for (let tries = 0; tries < 1200; tries += 1) {
      browser = await processesUnder(killed.dataDir);
      const groups = new Set(browser.map((tool) => tool.group));
      if ((await processesInGroups(groups)).some((tool) => tool.command.includes('--type=renderer'))) break;
      await sleep(25);
    }
    expect(browser.some((tool) => tool.parent === serverPid)).toBe(true);
    const groups = new Set(browser.map((tool) => tool.group));
    const tools = [...browser, ...(await processesInGroups(groups))];
    expect(tools.some((tool) => tool.command.includes('--type=renderer'))).toBe(true);
    expect(await killed.signal('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await survivors(tools, killed.dataDir), JSON.stringify(tools, null, 1)).toEqual([]);
    // Its profile goes with the work area, which the next process reclaims.
    expect(await workAreas(killed)).toHaveLength(1);
    await start({});
    expect(await workAreas(killed)).toEqual([]);
  });
});
