// Webhooks (openapi.yaml, "Webhooks") on the real server: an asynchronous submission with a
// callback_url (raw, or the SDK's jobs.submit callbackUrl) gets one signed event at a real HTTP
// receiver on loopback (allowed by the operator's allow-list, PDN_WEBHOOK_ALLOW_CIDRS) when its job
// ends; the event matches the contract, and the job it names gives its outputs with URLs signed afresh
// ("Fresh download URLs"); the SDK's verifyWebhook accepts it with the secret the admin command prints,
// and refuses it tampered, stale or under another secret; a rotated secret signs beside the old one.
// Outside the allow-list, loopback, documentation and IPv4-compatible addresses and the host's own are
// refused at submission, beside a working delivery to an allowed one, and a redirect to a refused
// address is not followed. Receivers that never answer hold at most their users' and their host's share
// of the attempts in flight, while another user's event goes out. (Retries, their order and backoff
// run on an injected clock in apps/server/src/webhooks/deliverer.test.ts.)
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { networkInterfaces } from 'node:os';
import type { Download, JobResponse, WebhookEvent } from '@pdn/api-types';
import { labelledPdf } from '@pdn/fixtures';
import { Pdn, verifyWebhook, WebhookVerificationError } from '@pdn/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedFetch } from './contract/checked-fetch.js';
import { describeErrors, openapi, validatorFor } from './contract/openapi-document.js';
import { AccountVisitor } from './harness/account-visitor.js';
import { pageCount } from './harness/download.js';
import { field, file, form } from './harness/form.js';
import { type ServerContext, useServer } from './harness/use-server.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A loopback receiver that answers 200 (or what `answer` sets, to its next request) and hands each
 * request to whoever waits for one.
 */
async function receiver(host = '127.0.0.1'): Promise<{
  url: string;
  next(): Promise<Received>;
  answer(status: number, location: string): void;
  count(): number;
  close(): Promise<void>;
}> {
  const queue: Received[] = [];
  const waiting: ((received: Received) => void)[] = [];
  let count = 0;
  let answer: { status: number; location: string } | undefined;
  const server: Server = createServer((req, res) => {
    count += 1;
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      if (answer) {
        res.statusCode = answer.status;
        res.setHeader('location', answer.location);
        answer = undefined;
      }
      res.end();
      const received = { headers: req.headers, body };
      const waiter = waiting.shift();
      if (waiter) waiter(received);
      else queue.push(received);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://${host}:${port}/pdn-events`,
    answer: (status, location) => {
      answer = { status, location };
    },
    count: () => count,
    next: () => {
      const ready = queue.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function mergeForm(label: string, callbackUrl: string): Promise<FormData> {
  return form(
    file('files[]', await labelledPdf(`${label}a`, 1), 'a.pdf'),
    file('files[]', await labelledPdf(`${label}b`, 1), 'b.pdf'),
    field('callback_url', callbackUrl),
  );
}

async function secretOf(ctx: ServerContext, user: string, rotate = false): Promise<string> {
  const result = await ctx.server.admin(['webhooks', 'secret', user, ...(rotate ? ['--rotate'] : [])]);
  expect(result.exitCode).toBe(0);
  return result.stdout.trim().split('\n').at(-1) ?? '';
}

const validEvent = validatorFor(openapi.components.schemas.WebhookEvent as object);

describe('webhooks', () => {
  const ctx = useServer({ env: { PDN_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' } });
  let key: string;
  let hooks: Awaited<ReturnType<typeof receiver>>;

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'ada', plan: 'premium' });
    hooks = await receiver();
  });
  afterAll(() => hooks?.close());

  it('POSTs one signed job.succeeded event to the callback_url when the job ends', async () => {
    const submitted = await ctx.call<JobResponse>('/api/v1/merge', {
      key,
      body: await mergeForm('W', hooks.url),
      headers: { Prefer: 'respond-async' },
    });
    expect(submitted.status).toBe(202);
    const { headers, body } = await hooks.next();
    expect(headers['content-type']).toBe('application/json');
    const event = JSON.parse(body) as WebhookEvent;
    if (!validEvent(event)) throw new Error(`the event breaks the contract: ${describeErrors(validEvent)}`);
    expect(event).toMatchObject({
      type: 'job.succeeded',
      data: { job: { id: submitted.json.data.id, status: 'succeeded', result: { page_count: 2 } } },
    });
    expect(headers['pdn-event-id']).toBe(event.id);

    const secret = await secretOf(ctx, 'ada');
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const signature = String(headers['pdn-signature']);
    expect(await verifyWebhook(body, signature, secret)).toEqual(event);
    for (const [what, attempt] of [
      ['tampered', () => verifyWebhook(body.replace('succeeded', 'failed'), signature, secret)],
      ['under another secret', () => verifyWebhook(body, signature, `${secret.slice(0, -1)}x`)],
      ['stale', () => verifyWebhook(body, signature, secret, { now: () => Date.now() + 10 * 60_000 })],
    ] as const)
      await expect(attempt(), what).rejects.toBeInstanceOf(WebhookVerificationError);
  });

  it("the SDK's jobs.submit sends callbackUrl; the receiver downloads through the job the event names", async () => {
    const checked = checkedFetch();
    const pdn = new Pdn({ apiKey: key, baseUrl: ctx.server.baseUrl, fetch: checked.fetch });
    const job = await pdn.jobs.submit('merge', {
      files: [await labelledPdf('Sa', 1), await labelledPdf('Sb', 2)],
      callbackUrl: hooks.url,
    });
    const { headers, body } = await hooks.next();
    const event = await verifyWebhook(body, String(headers['pdn-signature']), await secretOf(ctx, 'ada'));
    expect(event).toMatchObject({ type: 'job.succeeded', data: { job: { id: job.id } } });
    const fresh = await pdn.jobs.get(event.data.job.id);
    expect(await pageCount(await pdn.download((fresh.result as { download: Download }).download))).toBe(3);
    checked.assertConforms();
  });

  it('signs with the old and the new secret after a rotation', async () => {
    const old = await secretOf(ctx, 'ada');
    const rotated = await secretOf(ctx, 'ada', true);
    expect(rotated).not.toBe(old);
    await ctx.call('/api/v1/merge', {
      key,
      body: await mergeForm('R', hooks.url),
      headers: { Prefer: 'respond-async' },
    });
    const { headers, body } = await hooks.next();
    const signature = String(headers['pdn-signature']);
    expect(signature.match(/v1=/g)).toHaveLength(2);
    expect(await verifyWebhook(body, signature, old)).toMatchObject({ type: 'job.succeeded' });
    expect(await verifyWebhook(body, signature, rotated)).toMatchObject({ type: 'job.succeeded' });
  });

  it('shows the secret in the account area and rotates it there, behind CSRF', async () => {
    const visitor = new AccountVisitor(ctx.server.baseUrl);
    expect((await visitor.signUp('hooks@example.com', 'correct horse battery')).status).toBe(303);
    const shown = async () =>
      /id="webhook-secret"[^>]*>(whsec_[A-Za-z0-9_-]{43})</.exec(
        (await visitor.get('/account/webhooks')).html,
      )?.[1];
    const first = await shown();
    expect(first).toBeDefined();
    expect(await secretOf(ctx, 'hooks@example.com')).toBe(first);
    expect((await visitor.post('/account/webhooks/rotate', { csrf: 'A'.repeat(43) })).status).toBe(403);
    expect(await shown()).toBe(first);
    const rotated = await visitor.post('/account/webhooks/rotate', {});
    expect(rotated.status).toBe(303);
    const second = await shown();
    expect(second).not.toBe(first);
    expect(await secretOf(ctx, 'hooks@example.com')).toBe(second);
  });

  it.each([
    ['a synchronous call', {}, 'https://example.com/hook', /Prefer: respond-async/],
    ['a URL that is not http(s)', { Prefer: 'respond-async' }, 'ftp://example.com/hook', /http or https/],
  ])('refuses a callback_url on %s with 400', async (_, headers, url, message) => {
    const res = await ctx.call('/api/v1/merge', { key, body: await mergeForm('X', url), headers });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      error: { code: 'invalid_input', message: expect.stringMatching(message) },
    });
  });
});

describe('webhook addresses', () => {
  // This machine's first address other than loopback, allowed by range so that only its being the
  // host's own refuses it.
  const own = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .find(({ internal, family }) => !internal && family === 'IPv4')?.address;
  const ctx = useServer({
    env: {
      PDN_WEBHOOK_ALLOW_CIDRS: ['127.0.0.2/32', ...(own === undefined ? [] : [`${own}/32`])].join(','),
      PDN_LOG_LEVEL: 'info',
    },
  });
  let key: string;
  let allowed: Awaited<ReturnType<typeof receiver>>;
  let forbidden: Awaited<ReturnType<typeof receiver>>;

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'ada', plan: 'premium' });
    allowed = await receiver('127.0.0.2');
    forbidden = await receiver('127.0.0.1');
  });
  afterAll(async () => {
    await allowed?.close();
    await forbidden?.close();
  });

  const submit = async (url: string) =>
    ctx.call<JobResponse>('/api/v1/merge', {
      key,
      body: await mergeForm('P', url),
      headers: { Prefer: 'respond-async' },
    });

  it('delivers to an address the allow-list opens', async () => {
    expect((await submit(allowed.url)).status).toBe(202);
    expect(JSON.parse((await allowed.next()).body)).toMatchObject({ type: 'job.succeeded' });
  });

  it.each([
    ['loopback outside the allow-list', () => 'http://127.0.0.1:9/hook', /127\.0\.0\.1 is loopback/],
    ['localhost', () => 'http://localhost:9/hook', /loopback/],
    ['IPv6 loopback', () => 'http://[::1]:9/hook', /::1/],
    ['an IPv4-compatible IPv6 address', () => 'http://[::127.0.0.1]:9/hook', /global unicast/],
    ['a documentation address', () => 'http://192.0.2.1/hook', /192\.0\.2\.1 is documentation/],
    ['cloud metadata', () => 'http://169.254.169.254/x', /link-local/],
    [
      'an address of the host itself, though allowed by range',
      () => `http://${own}:6379/any/path?x=1`,
      /own host/,
    ],
  ])('refuses %s at submission', async (what, url, message) => {
    if (what.startsWith('an address of the host') && own === undefined)
      return console.warn('skipped: this machine has no IPv4 address besides loopback');
    const res = await submit(url());
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      error: { code: 'invalid_input', message: expect.stringMatching(/^callback_url is refused: /) },
    });
    expect((res.json as unknown as { error: { message: string } }).error.message).toMatch(message);
  });

  it('follows no redirect: a 302 to 127.0.0.1 is a failed attempt, and 127.0.0.1 hears nothing', async () => {
    allowed.answer(302, forbidden.url);
    const submitted = await submit(allowed.url);
    expect(submitted.status).toBe(202);
    await allowed.next();
    const failed = async () =>
      ctx.server.log
        .split('\n')
        .find((line) => line.includes('webhook attempt failed') && line.includes(submitted.json.data.id));
    for (let tries = 0; tries < 100 && (await failed()) === undefined; tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(JSON.parse((await failed()) ?? '{}')).toMatchObject({ status: 302, attempt: 1 });
    expect(forbidden.count()).toBe(0);
  });
});

/**
 * A loopback receiver that reads each event and never answers, as a receiver that hangs does: it
 * counts the requests it holds open, at most and by job.
 */
async function stalledReceiver(host: string): Promise<{
  url: string;
  held(): string[];
  mostHeld(): number;
  close(): Promise<void>;
}> {
  const open = new Map<object, string>();
  let most = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      open.set(res, (JSON.parse(body) as WebhookEvent).data.job.id);
      most = Math.max(most, open.size);
    });
    res.on('close', () => open.delete(res));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://${host}:${port}/pdn-events`,
    held: () => [...open.values()],
    mostHeld: () => most,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('receivers that never answer', () => {
  const ctx = useServer({ env: { PDN_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' } });

  it("hold no more than their users' share of attempts, and another user's event goes out meanwhile", async () => {
    const stalled = await stalledReceiver('127.0.0.3');
    const healthy = await receiver('127.0.0.4');
    try {
      const submit = async (key: string, label: string, url: string) => {
        const res = await ctx.call<JobResponse>('/api/v1/merge', {
          key,
          body: await mergeForm(label, url),
          headers: { Prefer: 'respond-async' },
        });
        expect(res.status).toBe(202);
        return res.json.data.id;
      };
      // Two users whose receivers, on one host, all hang: 6 events each.
      const stuck: string[][] = [];
      for (const user of ['hung1', 'hung2']) {
        const key = await ctx.server.createKey({ user, plan: 'premium' });
        const ids: string[] = [];
        for (let i = 0; i < 6; i += 1) ids.push(await submit(key, `${user}-${i}`, stalled.url));
        stuck.push(ids);
      }
      for (let tries = 0; tries < 200 && stalled.held().length < 8; tries += 1)
        await new Promise((resolve) => setTimeout(resolve, 25));
      // Each user holds at most 4 attempts (its cap), the host at most 8 (its cap).
      expect(stalled.held()).toHaveLength(8);
      for (const ids of stuck) expect(stalled.held().filter((id) => ids.includes(id))).toHaveLength(4);

      const other = await ctx.server.createKey({ user: 'prompt', plan: 'premium' });
      const id = await submit(other, 'prompt', healthy.url);
      const event = JSON.parse((await healthy.next()).body) as WebhookEvent;
      expect(event.data.job.id).toBe(id);
      // It went out while the hung attempts were still held, each of them for up to 10 s.
      expect(stalled.held().length).toBeGreaterThan(0);
      expect(stalled.mostHeld()).toBe(8);
    } finally {
      await stalled.close();
      await healthy.close();
    }
  });
});
