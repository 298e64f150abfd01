import { http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { AuthenticationError, InvalidInputError, Pdn } from '../src/index.js';
import { apiKey, baseUrl, client, compressData, ok, sent, server, useMsw } from './msw.js';

useMsw();

describe('results', () => {
  it('are the server data, with requestId and rateLimit that JSON leaves out', async () => {
    server.use(http.post(`${baseUrl}/api/v1/compress`, () => ok(compressData)));
    const result = await client().compress({ file: Buffer.from('%PDF-') });
    expect(result.requestId).toBe('req_ok');
    expect(result.rateLimit).toEqual({ limit: 1000, remaining: 998, reset: new Date(1_800_000_000_000) });
    expect(JSON.parse(JSON.stringify(result))).toEqual(compressData);
    expect(Object.keys(result)).not.toContain('requestId');
  });

  it('parse Enterprise rate-limit headers as unlimited (null)', async () => {
    const unlimited = {
      'X-RateLimit-Limit': 'unlimited',
      'X-RateLimit-Remaining': 'unlimited',
      'X-RateLimit-Reset': '1800000000',
    };
    server.use(
      http.get(`${baseUrl}/api/v1/languages`, () => ok({ default: 'eng', languages: [] }, unlimited)),
    );
    const result = await client().languages();
    expect(result.rateLimit).toEqual({ limit: null, remaining: null, reset: new Date(1_800_000_000_000) });
  });

  it('have rateLimit undefined when the headers are absent', async () => {
    server.use(http.get(`${baseUrl}/api/v1/languages`, () => ok({ default: 'eng', languages: [] }, {})));
    expect((await client().languages()).rateLimit).toBeUndefined();
  });
});

describe('requests', () => {
  it('carry the API key as a Bearer token and ask for JSON', async () => {
    server.use(http.get(`${baseUrl}/api/v1/languages`, () => ok({ default: 'eng', languages: [] })));
    await client().languages();
    expect(sent[0]?.headers.get('authorization')).toBe(`Bearer ${apiKey}`);
    expect(sent[0]?.headers.get('accept')).toBe('application/json');
  });

  it('take the key and base URL from PDN_API_KEY and PDN_BASE_URL', async () => {
    vi.stubEnv('PDN_API_KEY', 'pdn_live_from_env');
    vi.stubEnv('PDN_BASE_URL', 'http://env.pdn.test/');
    server.use(http.get('http://env.pdn.test/api/v1/languages', () => ok({ default: 'eng', languages: [] })));
    await new Pdn().languages();
    expect(sent[0]?.headers.get('authorization')).toBe('Bearer pdn_live_from_env');
  });

  it('default to the local server', () => {
    expect(new Pdn({ apiKey }).baseUrl).toBe('http://127.0.0.1:3000');
  });

  it('use an injected fetch instead of the global one', async () => {
    const fetch = vi.fn(async () => ok({ default: 'eng', languages: [] }));
    await new Pdn({ apiKey, baseUrl: 'http://injected.test', fetch }).languages();
    expect(fetch).toHaveBeenCalledOnce();
    expect(sent).toHaveLength(0);
  });

  it("are made with redirect: 'error', so fetch keeps no copy of the upload to replay", async () => {
    const fetch = vi.fn(async (_url: string | URL | Request, _init?: RequestInit) => ok(compressData));
    await new Pdn({ apiKey, baseUrl, fetch }).compress({ file: Buffer.from('%PDF-') });
    expect(fetch.mock.calls[0]?.[1]?.redirect).toBe('error');
  });

  it('without an API key are refused before sending', async () => {
    const error = await new Pdn({ baseUrl }).languages().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ code: 'unauthorized', status: undefined });
    expect(sent).toHaveLength(0);
  });
});

describe('validation before sending (no network call, status undefined)', () => {
  const pdf = Buffer.from('%PDF-');
  const table: Array<[string, { call: (pdn: Pdn) => Promise<unknown>; message: RegExp }]> = [
    [
      'an unknown level',
      {
        call: (p) => p.compress({ file: pdf, level: 'max' as 'high' }),
        message: /level must be one of low, medium, high/,
      },
    ],
    ['merge with one file', { call: (p) => p.merge({ files: [pdf] }), message: /2 to 20 files, got 1/ }],
    [
      'merge with 21 files',
      { call: (p) => p.merge({ files: Array(21).fill(pdf) }), message: /2 to 20 files, got 21/ },
    ],
    [
      'merge with a string among the files',
      {
        call: (p) => p.merge({ files: [pdf, 'b.pdf' as unknown as Buffer] }),
        message: /files\[1\]: a string is not file content/,
      },
    ],
    [
      'split without ranges',
      { call: (p) => p.split({ file: pdf, ranges: '  ' }), message: /ranges is required/ },
    ],
    [
      'split with an empty list',
      { call: (p) => p.split({ file: pdf, ranges: [] }), message: /ranges is required/ },
    ],
    [
      'split with an empty item',
      { call: (p) => p.split({ file: pdf, ranges: ['1', ''] }), message: /no empty item/ },
    ],
    [
      'ocr with an empty language',
      { call: (p) => p.ocr({ image: pdf, language: '' }), message: /language must be/ },
    ],
    ['ocr without an image', { call: (p) => p.ocr({} as never), message: /image is required/ }],
  ];
  it.each(table)('%s', async (_name, { call, message }) => {
    const error = await call(client()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ code: 'invalid_input', status: undefined });
    expect((error as Error).message).toMatch(message);
    expect(sent).toHaveLength(0);
  });

  it('bad client options are refused at construction', () => {
    expect(() => new Pdn({ maxRetries: -1 })).toThrow(InvalidInputError);
    expect(() => new Pdn({ timeout: 0 })).toThrow(InvalidInputError);
    expect(() => new Pdn({ baseUrl: '127.0.0.1:3000' })).toThrow(/baseUrl must be an http\(s\) URL/);
    expect(() => new Pdn({ baseUrl: 'http://' })).toThrow(InvalidInputError);
  });
});
