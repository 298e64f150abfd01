import { HttpResponse, http } from 'msw';
import { expect, it, vi } from 'vitest';
import type { Logger } from '../src/index.js';
import { apiKey, baseUrl, client, download, fail, ok, server, useMsw } from './msw.js';

useMsw();

function spy(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const line = (level: string) => (message: string) => lines.push(`${level} ${message}`);
  return { lines, debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

it('debug logs each request and its answer; info logs retries', async () => {
  let calls = 0;
  server.use(
    http.get(`${baseUrl}/api/v1/languages`, () =>
      ++calls === 1 ? fail(500, 'internal_error') : ok({ default: 'eng', languages: [] }),
    ),
  );
  vi.spyOn(Math, 'random').mockReturnValue(1); // backoff 375 ms
  const logger = spy();
  await client({ logger, logLevel: 'debug' }).languages();
  expect(logger.lines).toEqual([
    `debug GET ${baseUrl}/api/v1/languages`,
    expect.stringMatching(
      /^debug GET http:\/\/pdn\.test\/api\/v1\/languages: 500 in \d+ ms, request req_500$/,
    ),
    'info GET /api/v1/languages: retry 1 of 2 in 375 ms after internal_error happened',
    `debug GET ${baseUrl}/api/v1/languages`,
    expect.stringMatching(/: 200 in \d+ ms, request req_ok$/),
  ]);
});

it('never logs the API key or a download signature', async () => {
  server.use(http.get(`${baseUrl}/api/get-pdf.php`, () => new HttpResponse('%PDF-')));
  const logger = spy();
  await client({ logger, logLevel: 'debug' }).download(
    download({ url: '/api/get-pdf.php?file=f&sig=s3cr3t' }),
  );
  expect(logger.lines.join('\n')).not.toMatch(new RegExp(`s3cr3t|${apiKey}`));
  expect(logger.lines[0]).toBe(`debug GET ${baseUrl}/api/get-pdf.php`);
});

it('PDN_LOG sets the level when the option is absent', async () => {
  vi.stubEnv('PDN_LOG', 'debug');
  server.use(http.get(`${baseUrl}/api/v1/languages`, () => ok({ default: 'eng', languages: [] })));
  const logger = spy();
  await client({ logger }).languages();
  expect(logger.lines).toHaveLength(2);
});

it('is quiet by default', async () => {
  server.use(http.get(`${baseUrl}/api/v1/languages`, () => ok({ default: 'eng', languages: [] })));
  const spies = (['log', 'debug', 'info', 'warn', 'error'] as const).map((m) => vi.spyOn(console, m));
  await client().languages();
  for (const spy of spies) expect(spy).not.toHaveBeenCalled();
});

it('writes to stderr by default in Node, never to stdout (a CLI output or a pipe)', async () => {
  server.use(http.get(`${baseUrl}/api/v1/languages`, () => ok({ default: 'eng', languages: [] })));
  const error = vi.spyOn(console, 'error').mockImplementation(() => {});
  const stdout = (['log', 'debug', 'info'] as const).map((m) => vi.spyOn(console, m));
  await client({ logLevel: 'debug' }).languages();
  expect(error).toHaveBeenCalledWith(`[pdn-sdk] debug GET ${baseUrl}/api/v1/languages`);
  for (const spy of stdout) expect(spy).not.toHaveBeenCalled();
});
