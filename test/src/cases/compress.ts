// Compress as the contract checks it, whichever processes answer: at each level, on text,
// photo (JPEG and PNG images) and scanned PDFs, a valid PDF with the same page count, never larger
// than the input, sizes and savings that add up, and with Ghostscript a photo PDF at `high` well
// under half. Run embedded with each engine forced (compress.test.ts) and on the distributed stack
// (stack-contract.test.ts).
import type { CompressionLevel, CompressMethod, CompressResponse } from '@pdn/api-types';
import { labelledPdf, photoPdf, scanPdf, textPdf } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { download, pageCount } from '../harness/download.js';
import { field, file, form } from '../harness/form.js';
import { qpdfCheck } from '../harness/qpdf-check.js';
import { tools } from '../harness/tools.js';
import type { ServerContext } from '../harness/use-server.js';

const LEVELS: CompressionLevel[] = ['low', 'medium', 'high'];

interface Sample {
  bytes: Uint8Array;
  pages: number;
}

const samples = new Map<string, Sample>();
export const KINDS = ['text', 'photo-jpeg', 'photo-png', 'scan'] as const;
export type Kind = (typeof KINDS)[number];

async function makeSamples(): Promise<void> {
  samples.set('text', { bytes: await textPdf({ pages: 3, seed: 3 }), pages: 3 });
  samples.set('photo-jpeg', { bytes: await photoPdf({ pages: 2, image: 'jpeg', seed: 5 }), pages: 2 });
  samples.set('photo-png', {
    bytes: await photoPdf({ pages: 1, image: 'png', seed: 6, width: 900, height: 600 }),
    pages: 1,
  });
  samples.set('scan', { bytes: await scanPdf({ pages: 1, seed: 7 }), pages: 1 });
}

function sample(kind: string): Sample {
  const found = samples.get(kind);
  if (!found) throw new Error(`no sample ${kind}`);
  return found;
}

export interface CompressCasesOptions {
  /** The methods the server may report. */
  methods: readonly CompressMethod[];
  kinds: readonly Kind[];
  /** Ghostscript compresses: a photo PDF must end well under half its size at `high`. */
  ghostscript: boolean;
}

export function compressCases(
  ctx: ServerContext,
  { methods, kinds, ghostscript }: CompressCasesOptions,
): void {
  let key: string;
  const sizes = new Map<string, number>();

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'compressor', plan: 'enterprise' });
    if (samples.size === 0) await makeSamples();
  });

  async function compress(kind: string, level?: CompressionLevel): Promise<CompressResponse['data']> {
    const parts = [file('file', sample(kind).bytes, `${kind}.pdf`)];
    if (level) parts.push(field('level', level));
    const res = await ctx.call<CompressResponse>('/api/v1/compress', { key, body: form(...parts) });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    return res.json.data;
  }

  describe.each(kinds)('%s PDF', (kind) => {
    it.each(LEVELS)('at %s: valid, same pages, never larger, sizes that add up', async (level) => {
      const input = sample(kind);
      const data = await compress(kind, level);
      expect(data.level).toBe(level);
      expect(methods).toContain(data.method);
      expect(data.filename).toBe(`${kind}.compressed.pdf`);
      expect(data.original_size).toBe(input.bytes.length);
      expect(data.compressed_size).toBeLessThanOrEqual(data.original_size);
      const expectedSavings = ((data.original_size - data.compressed_size) / data.original_size) * 100;
      expect(data.savings_percent).toBeCloseTo(expectedSavings, 1);
      // "rounded to 2 decimals" (OpenAPI CompressResult.savings_percent)
      expect(Math.round(data.savings_percent * 100) / 100).toBe(data.savings_percent);
      if (data.method === 'original') expect(data.savings_percent).toBe(0);
      expect(data.page_count).toBe(input.pages);

      const output = await download(ctx, data.download.url);
      expect(output.bytes.length).toBe(data.compressed_size);
      expect(await pageCount(output.bytes)).toBe(input.pages);
      if (tools.qpdf) {
        const verdict = await qpdfCheck(output.bytes);
        expect(verdict.ok, verdict.output).toBe(true);
      }
      sizes.set(`${kind}/${level}`, data.compressed_size);
    });
  });

  // A tiny, already lean PDF leaves nothing to gain: the input comes back unchanged ("Never
  // hand back a larger file"), or a smaller tidy-up of it.
  it.each(LEVELS)('never grows a tiny lean PDF at %s', async (level) => {
    const tiny = await labelledPdf('tiny', 1);
    const res = await ctx.call<CompressResponse>('/api/v1/compress', {
      key,
      body: form(file('file', tiny, 'tiny.pdf'), field('level', level)),
    });
    expect(res.status).toBe(200);
    const data = res.json.data;
    expect(data.compressed_size).toBeLessThanOrEqual(tiny.length);
    const output = await download(ctx, data.download.url);
    if (data.method === 'original') {
      expect(data.savings_percent).toBe(0);
      expect(Buffer.from(tiny).equals(output.bytes)).toBe(true);
    }
    expect(await pageCount(output.bytes)).toBe(1);
  });

  it('uses medium when no level is given', async () => {
    const data = await compress('text');
    expect(data.level).toBe('medium');
  });

  it.runIf(ghostscript)('makes a photo-heavy PDF well under half its size at high', async () => {
    const original = sample('photo-jpeg').bytes.length;
    const high = sizes.get('photo-jpeg/high') ?? (await compress('photo-jpeg', 'high')).compressed_size;
    expect(high / original).toBeLessThan(0.4);
  });
}
