// The event loop is never blocked by document work. p99 latency of a cheap
// authenticated request (GET /api/v1/languages) while 4 compressions and 2 OCR jobs run, and the
// requests per second autocannon gets on it with no load.

import { fromPath } from '@pdn/sdk';
import autocannon from 'autocannon';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { formatMs, type Row } from '../report.js';
import { percentile } from '../stats.js';

async function cheapRequest(context: BenchContext): Promise<number> {
  const start = performance.now();
  const response = await fetch(context.server.url('/api/v1/languages'), {
    headers: { authorization: `Bearer ${context.apiKey}` },
  });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`GET /api/v1/languages answered ${response.status}`);
  return performance.now() - start;
}

async function underLoad(context: BenchContext): Promise<number[]> {
  const photo = context.corpus.compress.find((file) => file.kind === 'photo-jpeg');
  const image = context.corpus.ocr[0];
  if (!photo || !image) throw new Error('the corpus lacks a photo PDF or an OCR image');
  const until = performance.now() + context.profile.loadSeconds * 1000;
  const loop = async (job: () => Promise<unknown>) => {
    while (performance.now() < until) await job();
  };
  const load = [
    ...Array.from({ length: 4 }, () =>
      loop(() => context.pdn.compress({ file: fromPath(photo.path), level: 'high' })),
    ),
    ...Array.from({ length: 2 }, () =>
      loop(() => context.pdn.ocr({ image: fromPath(image.path), language: image.language })),
    ),
  ];
  const latencies: number[] = [];
  const probe = (async () => {
    while (performance.now() < until) {
      latencies.push(await cheapRequest(context));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  await Promise.all([...load, probe]);
  return latencies;
}

async function responsiveness(context: BenchContext): Promise<ScenarioResult> {
  const idle: number[] = [];
  for (let i = 0; i < 50; i++) idle.push(await cheapRequest(context));
  const loaded = await underLoad(context);
  const p99 = percentile(loaded, 99);
  const rows: Row[] = [
    {
      scenario: '6. Responsiveness',
      case: 'p99 of GET /api/v1/languages under 4 compressions + 2 OCR jobs',
      pdn: formatMs(p99),
      baseline: `idle p99 ${formatMs(percentile(idle, 99))}`,
      ratio: null,
      target: '< 50 ms',
      met: p99 < 50,
      note: `${loaded.length} samples over ${context.profile.loadSeconds} s`,
    },
  ];
  const result = await autocannon({
    url: context.server.url('/api/v1/languages'),
    headers: { authorization: `Bearer ${context.apiKey}` },
    connections: 10,
    duration: context.profile.autocannonSeconds,
  });
  rows.push({
    scenario: '6. Responsiveness',
    case: 'GET /api/v1/languages with autocannon, no load (10 connections)',
    pdn: `${Math.round(result.requests.average)} req/s`,
    baseline: '',
    ratio: null,
    target: '',
    met: null,
    note: `p99 latency ${result.latency.p99} ms; ${result.non2xx} non-2xx`,
  });
  return { rows };
}

export const responsivenessScenario: Scenario = { name: 'responsiveness', run: responsiveness };
