// Merge and split for real, with each PDF engine forced in turn (the cases:
// cases/merge-split.ts).
import { describe, expect, it } from 'vitest';
import { mergeSplitCases } from './cases/merge-split.js';
import { missing } from './harness/tools.js';
import { useServer } from './harness/use-server.js';

const pdfEngines = [...(missing('qpdf', 'the forced-qpdf merge/split tests') ? [] : ['qpdf']), 'pdf-lib'];

describe.each(pdfEngines)('PDF engine %s', (engine) => {
  const ctx = useServer({ env: { PDN_PDF_ENGINE: engine } });

  it('is the engine the server reports', async () => {
    const res = await ctx.call<{ data: { engines: { pdf: { name: string } } } }>('/healthz');
    expect(res.json.data.engines.pdf.name).toBe(engine);
  });

  mergeSplitCases(ctx);
});
