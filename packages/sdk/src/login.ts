// Signing a program in from a browser, as `pdn login` does: the server's device authorization grant
// (RFC 8628's shape, under /account/device, outside /api/v1 since the program has no key yet).
// `start` asks for a code and says where its owner approves it; `wait` polls at the interval the
// server gives, longer each time it says `slow_down`, until the new key comes (once), or the code is
// denied or expires. A client made without a key can do this; the key it gets is then the caller's
// to keep (the CLI saves it in its config file).
import { ConnectionError, LoginRefusedError } from './errors.js';
import type { Transport } from './internal/request.js';
import { sleep } from './internal/sleep.js';

/** A code to show the person, and what the program polls with. */
export interface LoginCode {
  /** What the person checks or types on the page: `BCDF-GHJK`. */
  userCode: string;
  /** The page to enter the code on. */
  verificationUri: string;
  /** The page with the code filled in. */
  verificationUriComplete: string;
  expiresInSeconds: number;
  intervalSeconds: number;
  /** The program's secret for polling; never shown. */
  deviceCode: string;
}

/** The new key, named for the machine, and whose it is. */
export interface LoginGrant {
  apiKey: string;
  keyId: string;
  keyName: string;
  owner: string;
}

const GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8628 section 3.5: how much longer to wait after each `slow_down`. */
const SLOW_DOWN_SECONDS = 5;

export class Login {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Asks for a code for a program on `clientName` (the machine's name the approval page shows). */
  async start(clientName: string, options: { signal?: AbortSignal } = {}): Promise<LoginCode> {
    const { status, body } = await this.#post(
      '/account/device/code',
      { client_name: clientName },
      options.signal,
    );
    if (status !== 200) throw refusal(status, body);
    return {
      userCode: String(body.user_code),
      verificationUri: String(body.verification_uri),
      verificationUriComplete: String(body.verification_uri_complete),
      expiresInSeconds: Number(body.expires_in),
      intervalSeconds: Number(body.interval),
      deviceCode: String(body.device_code),
    };
  }

  /** Polls until the code is approved; rejects with LoginRefusedError when denied or expired. */
  async wait(code: LoginCode, options: { signal?: AbortSignal } = {}): Promise<LoginGrant> {
    let interval = code.intervalSeconds;
    for (;;) {
      await sleep(interval * 1000, options.signal);
      const fields = { grant_type: GRANT_TYPE, device_code: code.deviceCode };
      const { status, body } = await this.#post('/account/device/token', fields, options.signal);
      if (status === 200)
        return {
          apiKey: String(body.access_token),
          keyId: String(body.key_id),
          keyName: String(body.key_name),
          owner: String(body.owner),
        };
      if (body.error === 'authorization_pending') continue;
      if (body.error === 'slow_down') {
        interval += SLOW_DOWN_SECONDS;
        continue;
      }
      throw refusal(status, body);
    }
  }

  async #post(path: string, fields: Record<string, string>, signal: AbortSignal | undefined) {
    const url = `${this.#transport.baseUrl}${path}`;
    let res: Response;
    try {
      res = await this.#transport.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams(fields).toString(),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ConnectionError(`cannot reach ${this.#transport.baseUrl}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    return { status: res.status, body };
  }
}

function refusal(status: number, body: Record<string, unknown>): LoginRefusedError {
  const description = typeof body.error_description === 'string' ? body.error_description : `HTTP ${status}`;
  if (body.error === 'access_denied')
    return new LoginRefusedError('login_denied', 'The sign-in was denied in the browser.');
  if (body.error === 'expired_token')
    return new LoginRefusedError('login_expired', 'The code expired before it was approved.');
  return new LoginRefusedError('login_refused', `The server refused the sign-in: ${description}`);
}
