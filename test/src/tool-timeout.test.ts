// A tool that overruns its time budget (issue #3: Ghostscript took 18 s on a 60-page PDF with a fully
// embedded font): the request is a 500 internal_error with a generic message, the tool's whole process
// group is gone, nothing is left on disk, and the server goes on serving. The budget is set to the
// 1 s minimum so the overrun is certain, not a race.
import { embeddedFontPdf, labelledPdf } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { field, file, form } from './harness/form.js';
import { filesLeftSince, listFiles } from './harness/leftovers.js';
import { processesMentioning } from './harness/processes.js';
import { missing } from './harness/tools.js';
import { useServer } from './harness/use-server.js';

describe.skipIf(missing('ghostscript', 'the tool-timeout test'))('a Ghostscript run past its timeout', () => {
  const ctx = useServer({ env: { PDN_COMPRESS_ENGINE: 'ghostscript', PDN_TOOL_TIMEOUT_MS: '1000' } });
  let key: string;
  let heavy: Uint8Array;

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'patient', plan: 'enterprise' });
    heavy = await embeddedFontPdf({ pages: 60 });
  });

  it('is a generic 500, kills the tool, leaves nothing behind, and the server goes on', async () => {
    const before = await listFiles(ctx.server);
    const res = await ctx.call<{ error: { message: string } }>('/api/v1/compress', {
      key,
      body: form(file('file', heavy, 'fonts.pdf'), field('level', 'medium')),
    });
    expect(res.status).toBe(500);
    // The message is for clients: no paths, no command lines (STYLE.md principle 4).
    expect(res.json.error.message).not.toContain(ctx.server.rootDir);
    expect(res.json.error.message).not.toMatch(/\bgs\b|ghostscript|fonts\.pdf/i);

    expect(await processesMentioning(ctx.server.dataDir)).toEqual([]);
    expect(await filesLeftSince(ctx.server, before)).toEqual([]);

    const small = await ctx.call('/api/v1/compress', {
      key,
      body: form(file('file', await labelledPdf('S', 1), 's.pdf')),
    });
    expect(small.status).toBe(200);
  });
});
