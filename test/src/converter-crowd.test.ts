// Office and HTML to PDF with a crowd (openapi.yaml, "Admission order and back-pressure"): three users
// each sending Office documents and HTML pages at once are all answered, with PDFs or the contract's
// refusals, never a failure nor a dropped connection; every user gets PDFs; at no moment do more
// LibreOffice instances run than the server has job slots; and once the crowd is gone the server
// converts as before. Counts and statuses only, never times.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ErrorResponse, OfficeToPdfResponse } from '@pdn/api-types';
import { HTML_ASSETS, NODE_DOCS_PAGE, OFFICE_ASSETS } from '@pdn/fixtures';
import { describe, expect, it } from 'vitest';
import { browserMissing } from './harness/browser.js';
import { form, type Part } from './harness/form.js';
import { processesMentioning } from './harness/processes.js';
import { missing } from './harness/tools.js';
import { useServer } from './harness/use-server.js';

const SLOTS = 2;
const USERS = 3;
/** Each user's calls at once: two documents and two pages. */
const CALLS: readonly ('office' | 'html')[] = ['office', 'html', 'office', 'html'];

type Answer = OfficeToPdfResponse & ErrorResponse;

const noOffice = missing('libreoffice', 'the converters under a crowd');

describe.skipIf(noOffice || browserMissing !== undefined)('the converters with a crowd', () => {
  const ctx = useServer({ env: { PDN_JOB_CONCURRENCY: String(SLOTS) } });

  async function parts(kind: 'office' | 'html'): Promise<Part[]> {
    if (kind === 'office') {
      const file = await readFile(join(OFFICE_ASSETS, 'word-2007-sample.docx'));
      return [{ name: 'file', file, filename: 'sample.docx', type: 'application/octet-stream' }];
    }
    const folder = join(HTML_ASSETS, NODE_DOCS_PAGE.folder);
    const html = await readFile(join(folder, NODE_DOCS_PAGE.page));
    const assets = await Promise.all(
      NODE_DOCS_PAGE.assets.map(async (name): Promise<Part> => {
        const file = await readFile(join(folder, name));
        return { name: 'assets[]', file, filename: name, type: 'application/octet-stream' };
      }),
    );
    return [{ name: 'html', file: html, filename: NODE_DOCS_PAGE.page, type: 'text/html' }, ...assets];
  }

  const convert = async (key: string, kind: 'office' | 'html') =>
    ctx.call<Answer>(kind === 'office' ? '/api/v1/office-to-pdf' : '/api/v1/html-to-pdf', {
      key,
      body: form(...(await parts(kind))),
    });

  /** The most LibreOffice instances of this server seen running at once while `work` runs. */
  async function mostOfficesDuring<T>(work: Promise<T>): Promise<{ result: T; most: number }> {
    let most = 0;
    let done = false;
    const watching = (async () => {
      while (!done) {
        // LibreOffice itself, not the bridge that names it among its arguments; an instance by its
        // profile, as soffice.bin at times runs a process of its own beside it for a moment.
        const profiles = (await processesMentioning(ctx.server.dataDir))
          .filter((line) => line.split(' ')[0]?.endsWith('/soffice.bin'))
          .map((line) => /-env:UserInstallation=(\S+)/.exec(line)?.[1]);
        most = Math.max(most, new Set(profiles).size);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    try {
      return { result: await work, most };
    } finally {
      done = true;
      await watching;
    }
  }

  it('answers every call of three users sending documents and pages at once, within its slots', async () => {
    const keys = await Promise.all(
      Array.from({ length: USERS }, (_, i) => ctx.server.createKey({ user: `crowd-${i}`, plan: 'premium' })),
    );
    const crowd = Promise.all(
      keys.flatMap((key) => CALLS.map(async (kind) => ({ key, kind, answer: await convert(key, kind) }))),
    );
    const { result: answers, most } = await mostOfficesDuring(crowd);
    for (const { kind, answer } of answers) {
      // A PDF, or the contract's answer to a server too busy to start it in time: nothing else.
      if (answer.status === 200) expect(answer.json.data.page_count, kind).toBeGreaterThan(0);
      else expect([answer.status, answer.json.error.code], kind).toEqual([503, 'server_busy']);
    }
    for (const key of keys) {
      const mine = answers.filter((call) => call.key === key && call.answer.status === 200);
      expect(mine.length, 'PDFs for each user').toBeGreaterThan(0);
    }
    expect(most).toBeLessThanOrEqual(SLOTS);
    // The crowd gone, a call is answered as before.
    const [after] = keys;
    expect((await convert(after as string, 'office')).status).toBe(200);
    expect((await convert(after as string, 'html')).status).toBe(200);
  });
});
