// Bad documents as the contract checks them, whichever processes answer: each
// is `400 invalid_input` from merge, split and compress with a message a person can act on (for
// merge, naming the file), the same verdict from all three operations (one inspection decides),
// never a 500. Servers run with PDN_MAX_PAGES at PAGE_CAP, so "too many pages" costs little.
// Run embedded with each engine pair (bad-input.test.ts) and on the distributed stack, where the
// verdict travels from a worker (stack-contract.test.ts).
import {
  emptyFile,
  encryptedPdf,
  labelledPdf,
  lyingCountPdf,
  notAPdf,
  pageTreeDagPdf,
  pageTreeLoopPdf,
  postscriptAsPdf,
  postscriptPolyglotPdf,
  truncatedPdf,
  zeroPagePdf,
} from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CallResult } from '../contract/checked-fetch.js';
import { field, file, form, type Part } from '../harness/form.js';
import type { ServerContext } from '../harness/use-server.js';

type ErrorBody = { error: { code: string; message: string } };

/** The servers' PDN_MAX_PAGES. */
export const PAGE_CAP = 20;

/** Bad documents, each with what its message must mention so a person knows what to fix. */
const badDocuments: [string, () => Promise<Uint8Array> | Uint8Array, RegExp][] = [
  ['not a PDF (a PNG named .pdf)', notAPdf, /pdf/i],
  ['an empty file', emptyFile, /empty|pdf/i],
  ['a truncated PDF', truncatedPdf, /damaged|truncated|corrupt|invalid|read/i],
  ['a password-protected PDF', encryptedPdf, /password|encrypt/i],
  ['a PDF with zero pages', zeroPagePdf, /no pages|zero pages|0 pages/i],
  ['a PostScript file named .pdf', postscriptAsPdf, /pdf/i],
  [
    `a PDF over the ${PAGE_CAP}-page cap`,
    () => labelledPdf('big', PAGE_CAP + 1),
    new RegExp(`\\b${PAGE_CAP}\\b`),
  ],
  [
    `a PDF over the cap whose /Count claims 1 page`,
    () => lyingCountPdf(PAGE_CAP + 1, 1),
    new RegExp(`has ${PAGE_CAP + 1} pages.*at most ${PAGE_CAP}`),
  ],
  ['a page tree with a loop', pageTreeLoopPdf, /page tree has a loop/],
  ['a page tree listing a node twice (2^40 pages)', () => pageTreeDagPdf(40), /page tree has a loop/],
  [
    'PostScript before a PDF (a polyglot)',
    () => postscriptPolyglotPdf(),
    /PostScript \(%!\) before its %PDF-/,
  ],
  [
    'a PostScript loop before a PDF',
    () => postscriptPolyglotPdf({ loop: true }),
    /PostScript \(%!\) before its %PDF-/,
  ],
  [
    'text before the %PDF- header',
    async () =>
      Buffer.concat([Buffer.from('Content-Type: application/pdf\r\n\r\n'), await labelledPdf('t', 1)]),
    /text before its %PDF- header/,
  ],
];

/** Answers `path` with `parts` must be a 400; returns its message. */
export function refusals(ctx: ServerContext, key: () => string) {
  return async (path: string, ...parts: Part[]): Promise<string> => {
    const res: CallResult<ErrorBody> = await ctx.call(path, { key: key(), body: form(...parts) });
    expect(res.status, res.json?.error?.message).toBe(400);
    return res.json.error.message;
  };
}

export function badDocumentCases(ctx: ServerContext): void {
  let key: string;
  let good: Uint8Array;
  const refused = refusals(ctx, () => key);

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'bad-documents', plan: 'enterprise' });
    good = await labelledPdf('good', 3);
  });

  describe.each(badDocuments)('%s', (_name, make, mentions) => {
    it('merge: refused, naming the file', async () => {
      const message = await refused(
        '/api/v1/merge',
        file('files[]', good, 'first.pdf'),
        file('files[]', await make(), 'second.pdf'),
        file('files[]', good, 'third.pdf'),
      );
      expect(message).toMatch(/second\.pdf|file 2/);
      expect(message).toMatch(mentions);
    });

    it('split: refused', async () => {
      expect(await refused('/api/v1/split', file('file', await make()), field('ranges', '1'))).toMatch(
        mentions,
      );
    });

    it('compress: refused', async () => {
      expect(await refused('/api/v1/compress', file('file', await make()), field('level', 'high'))).toMatch(
        mentions,
      );
    });
  });
}
