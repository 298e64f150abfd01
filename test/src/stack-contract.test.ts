// The contract checks on the distributed stack ("the existing contract suite passes against
// the stack as it does embedded"): two API processes taking turns and two workers on PostgreSQL, Redis
// and s3rver (harness/use-stack.ts) answer the same cases as the embedded server: compress, merge and
// split, jobs, and bad documents refused with the verdict a worker recorded. One stack for all, and
// each operation's cases once (the embedded suites run them per engine), so the suite time grows by
// one file, not twice. Skips, saying why, without PostgreSQL or Redis (.ci/run installs and starts both).
import type { CompressMethod } from '@pdn/api-types';
import { describe } from 'vitest';
import { badDocumentCases, PAGE_CAP } from './cases/bad-documents.js';
import { compressCases } from './cases/compress.js';
import { jobCases } from './cases/jobs.js';
import { mergeSplitCases } from './cases/merge-split.js';
import { sharedServicesMissing } from './harness/shared-services.js';
import { tools } from './harness/tools.js';
import { useStack } from './harness/use-stack.js';

const METHODS: CompressMethod[] = ['ghostscript+qpdf', 'ghostscript', 'qpdf', 'pdf-lib', 'original'];

describe.skipIf((await sharedServicesMissing()) !== undefined)(
  'the contract on the distributed stack',
  () => {
    // Each worker one job at a time, as jobs.test.ts runs its one slot: the fairness case reads start order.
    const ctx = useStack({ PDN_MAX_PAGES: String(PAGE_CAP), PDN_JOB_CONCURRENCY: '1' });

    describe('compress', () =>
      compressCases(ctx, {
        methods: METHODS,
        kinds: ['text', 'photo-jpeg'],
        ghostscript: tools.ghostscript,
      }));
    describe('merge and split', () => mergeSplitCases(ctx));
    describe('jobs', () => jobCases(ctx, { slots: 2 }));
    describe('bad documents', () => badDocumentCases(ctx));
  },
);
