// A person in the account area, at the HTTP level: a cookie jar, the CSRF token of the last
// page seen, and forms posted as a browser posts them (urlencoded, with Origin). Each visitor has an
// address of its own in X-Forwarded-For, which the server believes with PDN_TRUST_PROXY=1, so the
// per-address throttles of one suite's visitors do not add up.

export interface PageResult {
  status: number;
  headers: Headers;
  /** Set-Cookie lines of this response, as sent. */
  setCookies: string[];
  location: string | null;
  html: string;
}

let nextAddress = 1;

export class AccountVisitor {
  readonly jar = new Map<string, string>();
  csrf = '';
  readonly address: string;

  constructor(
    readonly baseUrl: string,
    address?: string,
  ) {
    this.address = address ?? `198.51.100.${nextAddress++}`;
  }

  cookie(name: string): string | undefined {
    return this.jar.get(name);
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<PageResult> {
    return this.#send('GET', path, undefined, headers);
  }

  /** Posts `fields` with the CSRF token of the last page seen (unless `fields` sets `csrf` itself). */
  async post(
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<PageResult> {
    const body = new URLSearchParams({ csrf: this.csrf, ...fields });
    return this.#send(
      'POST',
      path,
      body.toString(),
      { 'content-type': 'application/x-www-form-urlencoded', origin: this.baseUrl, ...headers },
      signal,
    );
  }

  /** Signs up with a fresh visit to the form; resolves to the answer of the POST. */
  async signUp(email: string, password: string): Promise<PageResult> {
    await this.get('/account/sign-up');
    return this.post('/account/sign-up', { email, password });
  }

  async signIn(email: string, password: string): Promise<PageResult> {
    await this.get('/account/sign-in');
    return this.post('/account/sign-in', { email, password });
  }

  /** Creates a key from the keys page; resolves to the full key shown on the answer. */
  async createKey(name: string, kind: 'live' | 'test' = 'test'): Promise<{ key: string; page: PageResult }> {
    await this.get('/account/keys');
    const page = await this.post('/account/keys', { name, kind });
    const key = /id="new-key"[^>]*>(pdn_(?:live|test)_[0-9a-f]{32})</.exec(page.html)?.[1];
    if (page.status !== 200 || key === undefined) throw new Error(`no key on the answer (${page.status})`);
    return { key, page };
  }

  async #send(
    method: string,
    path: string,
    body: string | undefined,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ) {
    const cookie = [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(new URL(path, `${this.baseUrl}/`), {
      method,
      redirect: 'manual',
      headers: {
        'x-forwarded-for': this.address,
        ...(cookie === '' ? {} : { cookie }),
        ...headers,
      },
      ...(body === undefined ? {} : { body }),
      ...(signal === undefined ? {} : { signal }),
    });
    const setCookies = response.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair = ''] = line.split(';');
      const [name = '', value = ''] = pair.split('=');
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.jar.delete(name.trim());
      else this.jar.set(name.trim(), value);
    }
    const html = await response.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    if (csrf !== undefined) this.csrf = csrf;
    return {
      status: response.status,
      headers: response.headers,
      setCookies,
      location: response.headers.get('location'),
      html,
    };
  }
}
