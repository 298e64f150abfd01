// Fuzz target: generated multipart bodies to every operation. Whatever
// the parts, names, file names, types and boundaries, every answer is a documented status with the
// envelope, never a 500; a success's outputs read back; the server keeps answering; nothing is left
// on disk. Budget and replay: fuzz-run.ts (PDN_FUZZ_SECONDS, PDN_FUZZ_SEED).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IMAGE_ASSETS, labelledPdf } from '@pdn/fixtures';
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { filesLeftSince, listFiles } from '../harness/leftovers.js';
import { useServer } from '../harness/use-server.js';
import { fuzz, fuzzTimeoutMs } from './fuzz-run.js';
import { expectHealthy, judge, OPERATIONS, pathOf } from './judge.js';
import { bodyArb, buildBody, type Fixtures } from './multipart-body.js';

const ctx = useServer();
let key: string;
let fixtures: Fixtures;

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'fuzz-multipart', plan: 'enterprise' });
  fixtures = {
    pdf: await labelledPdf('F', 2),
    image: await readFile(join(IMAGE_ASSETS, 'text', 'eng-g4.tif')),
  };
});

it(
  'answers every generated multipart body with a documented status, never a 500',
  async () => {
    const before = await listFiles(ctx.server);
    const arbitrary = fc.constantFrom(...OPERATIONS).chain(bodyArb);
    const report = await fuzz('src/fuzz/multipart.test.ts', arbitrary, async (model) => {
      const { contentType, body } = buildBody(model, fixtures);
      const res = await ctx.call(pathOf(model.operation), {
        key,
        headers: contentType === undefined ? {} : { 'content-type': contentType },
        body,
      });
      await judge(ctx, model.operation, res);
      await expectHealthy(ctx);
    });
    expect(report.runs).toBeGreaterThan(0);
    expect(await filesLeftSince(ctx.server, before)).toEqual([]);
  },
  fuzzTimeoutMs(),
);
