// Compress, with Ghostscript(+qpdf) and with the pdf-lib fallback forced (the cases:
// cases/compress.ts).
import type { CompressMethod } from '@pdn/api-types';
import { describe, expect, it } from 'vitest';
import { compressCases, KINDS } from './cases/compress.js';
import { missing } from './harness/tools.js';
import { useServer } from './harness/use-server.js';

const engines: { engine: string; methods: CompressMethod[] }[] = [
  ...(missing('ghostscript', 'the forced-Ghostscript compress tests')
    ? []
    : [
        {
          engine: 'ghostscript',
          methods: ['ghostscript+qpdf', 'ghostscript', 'qpdf', 'original'] as CompressMethod[],
        },
      ]),
  { engine: 'pdf-lib', methods: ['pdf-lib', 'original'] },
];

describe.each(engines)('compress engine $engine', ({ engine, methods }) => {
  const ctx = useServer({ env: { PDN_COMPRESS_ENGINE: engine } });

  it('is the engine the server reports', async () => {
    const res = await ctx.call<{ data: { engines: { compress: { name: string } } } }>('/healthz');
    expect(res.json.data.engines.compress.name).toBe(engine);
  });

  compressCases(ctx, { methods, kinds: KINDS, ghostscript: engine === 'ghostscript' });
});
