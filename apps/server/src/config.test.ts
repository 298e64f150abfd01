import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const MiB = 1024 * 1024;

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      logLevel: 'info',
      logFormat: 'json',
      pdfEngine: 'auto',
      compressEngine: 'auto',
      ocrEngine: 'auto',
      ocrPdfEngine: 'auto',
      maxPages: 5000,
      maxImagePixels: 40_000_000,
      toolTimeoutMs: 120_000,
      ocrRecycleAfter: 200,
      ocrMemoryBytes: 1024 * 1024 * 1024,
      uploadLimits: { free: 10 * MiB, premium: 100 * MiB, business: 250 * MiB, enterprise: 1024 * MiB },
      uploadPace: { minBytesPerSecond: 1024, windowMs: 20_000 },
      shutdownGraceMs: 30_000,
      corsOrigins: [],
      webhookAllowCidrs: [],
      account: {
        signUp: true,
        sessionLimits: { idleMs: 60 * 60_000, maxMs: 12 * 60 * 60_000 },
        trustProxy: 0,
      },
    });
    expect(config.account.publicUrl).toBeUndefined();
    // Unset: the role decides (http/drain.ts).
    expect(config.drainDelayMs).toBeUndefined();
    expect(config.dataDir).toBe(join(homedir(), '.local', 'share', 'pdn'));
    expect(config.signingSecret).toBeUndefined();
    expect(config.tessdataDir).toBeUndefined();
    expect(config.jobConcurrency).toBeGreaterThanOrEqual(1);
    expect(config.maxSyncWaitMs).toBe(20_000);
    expect(config.warnings).toEqual([]);
  });

  const accepted: [string, { env: Record<string, string>; want: Record<string, unknown> }][] = [
    ['port 0 (pick a free one)', { env: { PORT: '0' }, want: { port: 0 } }],
    ['a forced engine', { env: { PDN_PDF_ENGINE: 'pdf-lib' }, want: { pdfEngine: 'pdf-lib' } }],
    ['quiet logs', { env: { PDN_LOG_LEVEL: 'quiet' }, want: { logLevel: 'quiet' } }],
    ['readable logs', { env: { PDN_LOG_FORMAT: 'pretty' }, want: { logFormat: 'pretty' } }],
    ['requests not counted for /metrics', { env: { PDN_HTTP_METRICS: 'off' }, want: { httpMetrics: false } }],
    ['a metrics token', { env: { PDN_METRICS_TOKEN: 'scrape-me' }, want: { metricsToken: 'scrape-me' } }],
    [
      'an upload cap',
      {
        env: { PDN_UPLOAD_LIMIT_FREE: '1024' },
        want: { uploadLimits: expect.objectContaining({ free: 1024 }) },
      },
    ],
    ['a data folder', { env: { PDN_DATA_DIR: '/srv/pdn' }, want: { dataDir: '/srv/pdn' } }],
    ['a relative data folder', { env: { PDN_DATA_DIR: 'data' }, want: { dataDir: resolve('data') } }],
    ['the XDG data home', { env: { XDG_DATA_HOME: '/xdg' }, want: { dataDir: '/xdg/pdn' } }],
    [
      'PDN_DATA_DIR over the XDG data home',
      { env: { XDG_DATA_HOME: '/xdg', PDN_DATA_DIR: '/srv/pdn' }, want: { dataDir: '/srv/pdn' } },
    ],
    [
      'no relative XDG data home (the XDG specification ignores one)',
      { env: { XDG_DATA_HOME: 'xdg' }, want: { dataDir: join(homedir(), '.local', 'share', 'pdn') } },
    ],
    ['a blank value as unset', { env: { PDN_MAX_PAGES: ' ' }, want: { maxPages: 5000 } }],
    ['CORS for any origin', { env: { PDN_CORS_ORIGINS: '*' }, want: { corsOrigins: '*' } }],
    [
      'CORS for listed origins',
      {
        env: { PDN_CORS_ORIGINS: 'https://app.example.com, http://127.0.0.1:5173,' },
        want: { corsOrigins: ['https://app.example.com', 'http://127.0.0.1:5173'] },
      },
    ],
    [
      'a shorter wait for synchronous calls',
      { env: { PDN_MAX_SYNC_WAIT: '5' }, want: { maxSyncWaitMs: 5_000 } },
    ],
    [
      'the variable the wait replaced, read no more',
      {
        env: { PDN_MAX_QUEUE: '4' },
        want: { warnings: [expect.stringMatching(/PDN_MAX_QUEUE is no longer read.*PDN_MAX_SYNC_WAIT/)] },
      },
    ],
    ['no shutdown grace at all', { env: { PDN_SHUTDOWN_GRACE_MS: '0' }, want: { shutdownGraceMs: 0 } }],
    ['a drain delay for a balancer', { env: { PDN_DRAIN_DELAY_MS: '2500' }, want: { drainDelayMs: 2500 } }],
    [
      'a long secret',
      { env: { PDN_SIGNING_SECRET: 's'.repeat(32) }, want: { signingSecret: 's'.repeat(32) } },
    ],
    [
      'sign-up off',
      { env: { PDN_SIGNUP: 'off' }, want: { account: expect.objectContaining({ signUp: false }) } },
    ],
    [
      'session limits',
      {
        env: { PDN_SESSION_IDLE_MINUTES: '15', PDN_SESSION_MAX_HOURS: '1' },
        want: {
          account: expect.objectContaining({ sessionLimits: { idleMs: 15 * 60_000, maxMs: 60 * 60_000 } }),
        },
      },
    ],
    [
      'one trusted proxy',
      { env: { PDN_TRUST_PROXY: '1' }, want: { account: expect.objectContaining({ trustProxy: 1 }) } },
    ],
    [
      'webhook ranges the operator opens',
      {
        env: { PDN_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8, ::1/128' },
        want: { webhookAllowCidrs: ['127.0.0.0/8', '::1/128'] },
      },
    ],
    [
      'the old all-or-nothing switch, as the ranges it opened',
      {
        env: { PDN_WEBHOOK_ALLOW_PRIVATE: '1' },
        want: {
          webhookAllowCidrs: expect.arrayContaining(['127.0.0.0/8', '10.0.0.0/8', '::1/128', 'fc00::/7']),
        },
      },
    ],
    [
      'a public URL, without its trailing slash',
      {
        env: { PDN_PUBLIC_URL: 'https://pdn.example.com/base/' },
        want: { account: expect.objectContaining({ publicUrl: 'https://pdn.example.com/base' }) },
      },
    ],
  ];
  it.each(accepted)('accepts %s', (_name, { env, want }) => {
    expect(loadConfig(env)).toMatchObject(want);
  });

  const refused: [string, { env: Record<string, string>; names: RegExp }][] = [
    [
      'a port out of range',
      { env: { PORT: '70000' }, names: /^PORT must be an integer from 0 to 65535, got '70000'$/ },
    ],
    ['a non-numeric page cap', { env: { PDN_MAX_PAGES: 'lots' }, names: /^PDN_MAX_PAGES/ }],
    ['exponent notation', { env: { PDN_TOOL_TIMEOUT_MS: '1e5' }, names: /^PDN_TOOL_TIMEOUT_MS/ }],
    ['a negative number', { env: { PDN_JOB_CONCURRENCY: '-1' }, names: /^PDN_JOB_CONCURRENCY/ }],
    ['zero concurrency', { env: { PDN_OCR_POOL_SIZE: '0' }, names: /^PDN_OCR_POOL_SIZE/ }],
    ['no wait for a slot at all', { env: { PDN_MAX_SYNC_WAIT: '0' }, names: /^PDN_MAX_SYNC_WAIT/ }],
    [
      'an unknown engine',
      {
        env: { PDN_COMPRESS_ENGINE: 'magic' },
        names: /^PDN_COMPRESS_ENGINE must be one of auto, ghostscript, pdf-lib/,
      },
    ],
    ['an unknown log level', { env: { PDN_LOG_LEVEL: 'loud' }, names: /^PDN_LOG_LEVEL/ }],
    ['an unknown log format', { env: { PDN_LOG_FORMAT: 'xml' }, names: /^PDN_LOG_FORMAT/ }],
    [
      'a short secret',
      { env: { PDN_SIGNING_SECRET: 'short' }, names: /^PDN_SIGNING_SECRET must be at least 32/ },
    ],
    [
      'a sign-up switch that is neither on nor off',
      { env: { PDN_SIGNUP: 'no' }, names: /^PDN_SIGNUP must be one of on, off/ },
    ],
    [
      'sessions that never idle out',
      { env: { PDN_SESSION_IDLE_MINUTES: '0' }, names: /^PDN_SESSION_IDLE_MINUTES/ },
    ],
    ['a proxy count that is not a number', { env: { PDN_TRUST_PROXY: 'true' }, names: /^PDN_TRUST_PROXY/ }],
    [
      'a webhook range that is an address',
      {
        env: { PDN_WEBHOOK_ALLOW_CIDRS: '10.0.0.1' },
        names: /^PDN_WEBHOOK_ALLOW_CIDRS: "10\.0\.0\.1" is not a CIDR/,
      },
    ],
    [
      'both the old switch and the ranges',
      {
        env: { PDN_WEBHOOK_ALLOW_PRIVATE: '1', PDN_WEBHOOK_ALLOW_CIDRS: '10.0.0.0/8' },
        names: /^PDN_WEBHOOK_ALLOW_PRIVATE and PDN_WEBHOOK_ALLOW_CIDRS are both set/,
      },
    ],
    [
      'a public URL without a scheme',
      { env: { PDN_PUBLIC_URL: 'pdn.example.com' }, names: /^PDN_PUBLIC_URL/ },
    ],
    [
      'a public URL of another scheme',
      { env: { PDN_PUBLIC_URL: 'ftp://pdn.example.com' }, names: /^PDN_PUBLIC_URL/ },
    ],
    [
      'an origin with a path',
      {
        env: { PDN_CORS_ORIGINS: 'https://app.example.com/' },
        names:
          /^PDN_CORS_ORIGINS: 'https:\/\/app.example.com\/' is not an origin; .* written https:\/\/app.example.com$/,
      },
    ],
    ['a host without a scheme', { env: { PDN_CORS_ORIGINS: 'app.example.com' }, names: /^PDN_CORS_ORIGINS/ }],
    [
      '* among origins',
      { env: { PDN_CORS_ORIGINS: '*, https://a.example' }, names: /^PDN_CORS_ORIGINS: '\*'/ },
    ],
  ];
  it.each(refused)('refuses %s, naming the variable', (_name, { env, names }) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(names);
  });
});
