// pdn.login: the browser sign-in's two calls, as RFC 8628 shapes them: a code to show, then polls at
// the server's interval (longer after each slow_down) until the key comes, or a denial or an expiry
// ends the wait with LoginRefusedError.
import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { LoginRefusedError, Pdn } from '../src/index.js';
import { baseUrl, flush, sent, server, useMsw } from './msw.js';

useMsw();

const code = {
  device_code: 'dev-code',
  user_code: 'BCDF-GHJK',
  verification_uri: `${baseUrl}/account/device`,
  verification_uri_complete: `${baseUrl}/account/device?code=BCDF-GHJK`,
  expires_in: 900,
  // No wait between polls here: the test's server answers at once.
  interval: 0,
};
const keyless = () => new Pdn({ baseUrl, maxRetries: 0 });

describe('login', () => {
  it('asks for a code with the machine name, without a key', async () => {
    server.use(http.post(`${baseUrl}/account/device/code`, () => HttpResponse.json(code)));
    expect(await keyless().login.start('ada-laptop')).toEqual({
      userCode: 'BCDF-GHJK',
      verificationUri: code.verification_uri,
      verificationUriComplete: code.verification_uri_complete,
      expiresInSeconds: 900,
      intervalSeconds: 0,
      deviceCode: 'dev-code',
    });
    expect(sent[0]?.headers.get('authorization')).toBeNull();
    expect(await sent[0]?.text()).toBe('client_name=ada-laptop');
  });

  it('polls while the approval is pending, then returns the new key', async () => {
    const answers = [
      HttpResponse.json({ error: 'authorization_pending' }, { status: 400 }),
      HttpResponse.json({ error: 'authorization_pending' }, { status: 400 }),
      HttpResponse.json({
        access_token: 'pdn_live_x',
        key_id: 'key_1',
        key_name: 'pdn CLI on ada-laptop',
        owner: 'ada',
      }),
    ];
    server.use(http.post(`${baseUrl}/account/device/token`, () => answers.shift()));
    server.use(http.post(`${baseUrl}/account/device/code`, () => HttpResponse.json(code)));
    const pdn = keyless();
    const grant = await pdn.login.wait(await pdn.login.start('ada-laptop'));
    expect(grant).toEqual({
      apiKey: 'pdn_live_x',
      keyId: 'key_1',
      keyName: 'pdn CLI on ada-laptop',
      owner: 'ada',
    });
    const polls = sent.filter((request) => request.url.endsWith('/token'));
    expect(polls).toHaveLength(3);
    expect(await polls[0]?.text()).toBe(
      'grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=dev-code',
    );
  });

  it('polls at the interval the server gives, 5 seconds longer after each slow_down', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const answers = [
      HttpResponse.json({ error: 'slow_down' }, { status: 400 }),
      HttpResponse.json({ error: 'authorization_pending' }, { status: 400 }),
      HttpResponse.json({ access_token: 'pdn_live_x', key_id: 'key_1', key_name: 'n', owner: 'ada' }),
    ];
    server.use(http.post(`${baseUrl}/account/device/token`, () => answers.shift()));
    const granted = keyless().login.wait({
      userCode: code.user_code,
      verificationUri: code.verification_uri,
      verificationUriComplete: code.verification_uri_complete,
      expiresInSeconds: 900,
      intervalSeconds: 2,
      deviceCode: 'dev-code',
    });
    // [ms since the wait began, polls sent by then]: 2 s, then 2 + 5 s after the slow_down, twice.
    const table = [
      [1_999, 0],
      [2_000, 1],
      [8_999, 1],
      [9_000, 2],
      [15_999, 2],
      [16_000, 3],
    ] as const;
    let now = 0;
    for (const [at, polls] of table) {
      await vi.advanceTimersByTimeAsync(at - now);
      await flush();
      now = at;
      expect(
        sent.filter((request) => request.url.endsWith('/token')),
        `by ${at} ms`,
      ).toHaveLength(polls);
    }
    await expect(granted).resolves.toMatchObject({ apiKey: 'pdn_live_x' });
  });

  it.each([
    ['access_denied', 'login_denied'],
    ['expired_token', 'login_expired'],
    ['invalid_grant', 'login_refused'],
  ])('ends the wait when the server says %s', async (error, expected) => {
    server.use(
      http.post(`${baseUrl}/account/device/token`, () => HttpResponse.json({ error }, { status: 400 })),
    );
    const refused = keyless().login.wait({
      userCode: code.user_code,
      verificationUri: code.verification_uri,
      verificationUriComplete: code.verification_uri_complete,
      expiresInSeconds: 900,
      intervalSeconds: 0,
      deviceCode: 'dev-code',
    });
    await expect(refused).rejects.toBeInstanceOf(LoginRefusedError);
    await expect(refused).rejects.toMatchObject({ code: expected });
  });
});
