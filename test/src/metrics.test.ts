// GET /metrics and GET /readyz (issue #18): Prometheus text after real requests, behind PDN_METRICS_TOKEN, never
// counted against a quota and without rate-limit headers.
import { labelledPdf } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { file, form } from './harness/form.js';
import { tools } from './harness/tools.js';
import { useServer } from './harness/use-server.js';

const TOKEN = 'metrics-token-for-the-e2e-test';
const ctx = useServer({ env: { PDN_PDF_ENGINE: tools.qpdf ? 'qpdf' : 'pdf-lib', PDN_METRICS_TOKEN: TOKEN } });
let key: string;

/** `name{labels} value` lines as a map from `name{labels}` to the number. */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    found.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return found;
}

async function scrape(): Promise<Map<string, number>> {
  const res = await ctx.call('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  return samples(res.bytes.toString('utf8'));
}

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'scraped', plan: 'free' });
});

describe('GET /metrics', () => {
  it('answers 401 without the token, and with a wrong one', async () => {
    expect((await ctx.call('/metrics')).status).toBe(401);
    expect((await ctx.call('/metrics', { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
  });

  it('counts real requests by route and status, their latency, bytes, jobs and tool runs', async () => {
    const merged = await ctx.call('/api/v1/merge', {
      method: 'POST',
      key,
      body: form(file('files[]', await labelledPdf('A', 1)), file('files[]', await labelledPdf('B', 2))),
    });
    expect(merged.status).toBe(200);
    expect((await ctx.call('/nowhere')).status).toBe(404);

    const got = await scrape();
    expect(got.get('pdn_http_requests_total{route="/api/v1/merge",method="POST",status="200"}')).toBe(1);
    expect(got.get('pdn_http_requests_total{route="unmatched",method="GET",status="404"}')).toBe(1);
    expect(got.get('pdn_http_request_duration_seconds_count{route="/api/v1/merge"}')).toBe(1);
    expect(got.get('pdn_http_bytes_total{route="/api/v1/merge",direction="in"}')).toBeGreaterThan(1000);
    expect(got.get('pdn_http_bytes_total{route="/api/v1/merge",direction="out"}')).toBeGreaterThan(100);
    expect(got.get('pdn_jobs_finished_total{operation="merge",mode="sync",outcome="succeeded"}')).toBe(1);
    expect(got.get('pdn_job_queue_wait_seconds_count{operation="merge",mode="sync"}')).toBe(1);
    expect(got.get('pdn_jobs_running{operation="merge",mode="sync"}')).toBe(0);
    if (tools.qpdf) expect(got.get('pdn_tool_runs_total{tool="qpdf",result="ok"}')).toBeGreaterThan(0);
    expect(got.get('pdn_data_folder_free_bytes')).toBeGreaterThan(0);
    expect(got.get('pdn_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('is not counted against the hourly quota', async () => {
    const before = await ctx.call('/api/v1/account', { key });
    await scrape();
    await scrape();
    const after = await ctx.call('/api/v1/account', { key });
    expect(after.headers.get('x-ratelimit-remaining')).toBe(before.headers.get('x-ratelimit-remaining'));
  });
});

describe('GET /readyz', () => {
  it('answers ready without a key when the database, the rate-limit store and the data folder work', async () => {
    const res = await ctx.call<{ data: { status: string } }>('/readyz');
    expect(res.status).toBe(200);
    expect(res.json.data.status).toBe('ready');
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });
});
