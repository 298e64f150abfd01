// Exit code 5: a server that cannot take work whatever the files, here because its disk
// is full (507 insufficient_storage, which the SDK does not retry). The batch stops starting files,
// the report says when to try again, and nothing blames the inputs.
import { labelledPdf } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../src/harness/server.js';
import { mountSmallDisk } from '../src/harness/small-disk.js';
import { exportedPdn, jsonOf } from './run-pdn.js';
import { useWorkspace } from './workspace.js';

const disk = await mountSmallDisk(16);
const ws = useWorkspace();

describe.skipIf(disk === undefined)('a server whose disk is full', () => {
  let server: TestServer;
  let key: string;
  const pdn = exportedPdn(ws, () => ({ key, baseUrl: server.baseUrl }));

  beforeAll(async () => {
    server = await startServer({ env: { PDN_DATA_DIR: `${disk?.path}/data` } });
    key = await server.createKey({ user: 'cli-full' });
    await ws.file('a.pdf', await labelledPdf('A', 2));
    await ws.file('b.pdf', await labelledPdf('B', 2));
    await disk?.fill();
  });

  afterAll(async () => {
    await server?.stop();
    await disk?.remove();
  });

  it('--json: exit 5, the failure with retry_after, the rest not processed', async () => {
    const run = await pdn(['compress', 'a.pdf', 'b.pdf', '-o', 'out', '--concurrency', '1', '--json']);
    expect(run.code, run.stderr).toBe(5);
    const report = jsonOf(run);
    expect(report.summary).toEqual({ total: 2, succeeded: 0, failed: 1, not_processed: 1, skipped: 0 });
    expect(report.results[0]?.error).toMatchObject({
      code: 'insufficient_storage',
      status: 507,
      retry_after: 60,
    });
    expect(report.results[1]?.status).toBe('not_processed');
  });

  it('human: says the server is out of space and when to try again', async () => {
    const run = await pdn(['compress', 'a.pdf', '-o', 'out']);
    expect(run.code).toBe(5);
    expect(run.stderr, run.stderr).toMatch(/out of storage space.*retry at \d\d:\d\d \(in 60 seconds\)/);
  });
});
