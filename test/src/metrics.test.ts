// GET /metrics and GET /readyz: Prometheus text after real requests, behind PDN_METRICS_TOKEN, never
// counted against a quota and without rate-limit headers.
import { labelledPdf } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { field, file, form } from './harness/form.js';
import { tools } from './harness/tools.js';
import { useServer } from './harness/use-server.js';

const TOKEN = 'metrics-token-for-the-e2e-test';
// Logs at info: the suite reads the request lines (the role on each).
const ctx = useServer({
  env: { PDN_PDF_ENGINE: tools.qpdf ? 'qpdf' : 'pdf-lib', PDN_METRICS_TOKEN: TOKEN, PDN_LOG_LEVEL: 'info' },
});
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

/** The request log line of `requestId`, once the server has written it (after its answer went out). */
/** The log line `msg` (the request's own, or its job's end) of request `requestId`. */
async function logLine(requestId: string, msg = 'request'): Promise<Record<string, unknown>> {
  for (let tries = 0; tries < 100; tries += 1) {
    const line = ctx.server.output
      .split('\n')
      .find((text) => text.includes(`"request_id":"${requestId}"`) && text.includes(`"msg":"${msg}"`));
    if (line !== undefined) return JSON.parse(line) as Record<string, unknown>;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no ${msg} line for ${requestId} in the server's log`);
}

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'scraped', plan: 'free' });
});

describe('GET /metrics', () => {
  it('answers 401 without the token, and with a wrong one', async () => {
    expect((await ctx.call('/metrics')).status).toBe(401);
    expect((await ctx.call('/metrics', { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
  });

  it('counts real requests by route and status, their latency, bytes, jobs, rate-limit decisions and tool runs', async () => {
    const merged = await ctx.call('/api/v1/merge', {
      method: 'POST',
      key,
      headers: { 'X-Request-Id': 'timed-merge-0001' },
      body: form(file('files[]', await labelledPdf('A', 1)), file('files[]', await labelledPdf('B', 2))),
    });
    expect(merged.status).toBe(200);
    // Its log line names its job, whose own line, with the request's id, says where the time went:
    // waiting for a slot, in the engine, in each tool.
    const request = await logLine('timed-merge-0001');
    expect(request).toMatchObject({ route: '/api/v1/merge', job_id: expect.stringMatching(/^job_/) });
    expect(await logLine('timed-merge-0001', 'job ended')).toMatchObject({
      job_id: request.job_id,
      queue_ms: expect.any(Number),
      engine_ms: expect.any(Number),
      tools: tools.qpdf ? { qpdf: { runs: expect.any(Number), ms: expect.any(Number) } } : {},
    });
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
    // One counted request, one decision: the 404 and the scrape spend nothing.
    expect(got.get('pdn_rate_limit_decision_seconds_count')).toBe(1);
    if (tools.qpdf) expect(got.get('pdn_tool_runs_total{tool="qpdf",result="ok"}')).toBeGreaterThan(0);
    expect(got.get('pdn_data_folder_free_bytes')).toBeGreaterThan(0);
    // The merge was answered: no synchronous call is in progress, and admission expected it no wait.
    expect(got.get('pdn_sync_calls_in_progress')).toBe(0);
    expect(got.get('pdn_sync_call_expected_wait_seconds_count')).toBe(1);
    expect(got.get('pdn_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('counts the bytes a chunked body really carried, in the metrics and the log line alike, and names the role, with no shared-backend series', async () => {
    const earlier = await scrape();
    const before = earlier.get('pdn_http_bytes_total{route="/api/v1/split",direction="in"}') ?? 0;
    const outBefore = earlier.get('pdn_http_bytes_total{route="/api/v1/split",direction="out"}') ?? 0;
    const pdf = await labelledPdf('C', 1);
    const multipart = new Response(form(file('file', pdf), field('ranges', '1')));
    // A stream has no length: undici sends it chunked, with no Content-Length to go by.
    const split = await fetch(ctx.server.url('/api/v1/split'), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': multipart.headers.get('content-type') ?? '',
        'x-request-id': 'chunked-split-0001',
      },
      body: multipart.body,
      duplex: 'half',
    } as RequestInit);
    await split.arrayBuffer();
    expect(split.status).toBe(200);
    const got = await scrape();
    const counted = (got.get('pdn_http_bytes_total{route="/api/v1/split",direction="in"}') ?? 0) - before;
    expect(counted).toBeGreaterThan(pdf.length);
    // The request's log line gives the same count: one way to count, not the absent Content-Length.
    const line = await logLine('chunked-split-0001');
    expect(line).toMatchObject({ msg: 'request', status: 200, bytes_in: counted });
    expect(line.bytes_out).toBe(
      (got.get('pdn_http_bytes_total{route="/api/v1/split",direction="out"}') ?? 0) - outBefore,
    );
    expect(got.get('pdn_role_info{role="all"}')).toBe(1);
    // Every log line names the role too, the request lines among them.
    expect(ctx.server.output).toMatch(/^\{[^\n]*"role":"all"[^\n]*"msg":"request"/m);
    expect([...got.keys()].filter((name) => /^pdn_(postgres|redis)_/.test(name))).toEqual([]);
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
