// Webhooks (issue #14; openapi.yaml, "Webhooks") on the real server: an asynchronous submission with a
// callback_url (raw, or the SDK's jobs.submit callbackUrl) gets one signed event at a real HTTP
// receiver on loopback (allowed by the documented switch, PDN_WEBHOOK_ALLOW_PRIVATE=1) when its job
// ends; the event matches the contract, and the job it names gives its outputs with URLs signed afresh
// ("Fresh download URLs"); the SDK's verifyWebhook accepts it with the secret the admin command prints,
// and refuses it tampered, stale or under another secret; a rotated secret signs beside the old one.
// Without the switch a loopback callback is refused at submission. (Retries, their order and backoff
// run on an injected clock in apps/server/src/webhooks/deliverer.test.ts.)
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
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

/** A loopback receiver that answers 200 and hands each request to whoever waits for one. */
async function receiver(): Promise<{ url: string; next(): Promise<Received>; close(): Promise<void> }> {
  const queue: Received[] = [];
  const waiting: ((received: Received) => void)[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      res.end();
      const received = { headers: req.headers, body };
      const waiter = waiting.shift();
      if (waiter) waiter(received);
      else queue.push(received);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/pdn-events`,
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
  const ctx = useServer({ env: { PDN_WEBHOOK_ALLOW_PRIVATE: '1' } });
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

describe('webhooks without PDN_WEBHOOK_ALLOW_PRIVATE', () => {
  const ctx = useServer();
  let key: string;

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'ada', plan: 'premium' });
  });

  it.each([
    'http://127.0.0.1:9/hook',
    'http://localhost:9/hook',
    'http://[::1]:9/hook',
    'http://169.254.169.254/x',
  ])('refuses a callback to %s at submission', async (url) => {
    const res = await ctx.call('/api/v1/merge', {
      key,
      body: await mergeForm('P', url),
      headers: { Prefer: 'respond-async' },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      error: { code: 'invalid_input', message: expect.stringMatching(/callback_url/) },
    });
  });
});
