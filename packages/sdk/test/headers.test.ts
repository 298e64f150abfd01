import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import { InvalidInputError, VERSION } from '../src/index.js';
import { apiKey, baseUrl, client, compressData, download, ok, sent, server, useMsw } from './msw.js';

useMsw();

const languages = () => ok({ default: 'eng', languages: [] });

describe('User-Agent', () => {
  it('names the SDK, the runtime and the platform', async () => {
    server.use(http.get(`${baseUrl}/api/v1/languages`, languages));
    await client().languages();
    expect(sent[0]?.headers.get('user-agent')).toBe(
      `pdn-sdk/${VERSION} node/${process.versions.node} ${process.platform}`,
    );
  });

  it('goes with downloads too', async () => {
    server.use(http.get(`${baseUrl}/api/get-pdf.php`, () => new Response('%PDF-')));
    await client().download(download());
    expect(sent[0]?.headers.get('user-agent')).toMatch(/^pdn-sdk\//);
  });
});

describe('headers', () => {
  const table: Array<
    [string, { client?: Record<string, string>; call?: Record<string, string>; want: Record<string, string> }]
  > = [
    ['client headers go with every call', { client: { 'x-team': 'docs' }, want: { 'x-team': 'docs' } }],
    ['call headers go with that call', { call: { 'x-trace': 't1' }, want: { 'x-trace': 't1' } }],
    [
      'a call header wins over the client one',
      { client: { 'x-team': 'docs' }, call: { 'X-Team': 'ops' }, want: { 'x-team': 'ops' } },
    ],
    [
      'the User-Agent can be replaced',
      { client: { 'user-agent': 'my-app/2' }, want: { 'user-agent': 'my-app/2' } },
    ],
    [
      'Authorization stays the API key',
      { client: { authorization: 'Bearer other' }, want: { authorization: `Bearer ${apiKey}` } },
    ],
  ];
  it.each(table)('%s', async (_name, { client: clientHeaders, call, want }) => {
    server.use(http.get(`${baseUrl}/api/v1/languages`, languages));
    await client({ headers: clientHeaders }).languages({ headers: call });
    for (const [name, value] of Object.entries(want)) expect(sent[0]?.headers.get(name)).toBe(value);
  });

  it('the multipart Content-Type is the SDK own', async () => {
    server.use(http.post(`${baseUrl}/api/v1/compress`, () => ok(compressData)));
    await client().compress({ file: Buffer.from('%PDF-'), headers: { 'content-type': 'text/plain' } });
    expect(sent[0]?.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
  });

  it.each<[string, { client?: Record<string, string>; call?: Record<string, string> }]>([
    ['on the client', { client: { Expect: '100-continue' } }],
    ['on the call', { call: { expect: '100-continue' } }],
  ])('refuse an Expect header %s before sending anything', async (_name, { client: clientHeaders, call }) => {
    const error = await client({ headers: clientHeaders })
      .compress({ file: Buffer.from('%PDF-'), headers: call })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ status: undefined, message: expect.stringMatching(/^An Expect header/) });
    expect(sent).toHaveLength(0);
  });

  it('accept a Headers or a list of pairs', async () => {
    server.use(http.get(`${baseUrl}/api/v1/languages`, languages));
    await client({ headers: new Headers({ 'x-a': '1' }) }).languages({ headers: [['x-b', '2']] });
    expect([sent[0]?.headers.get('x-a'), sent[0]?.headers.get('x-b')]).toEqual(['1', '2']);
  });
});
