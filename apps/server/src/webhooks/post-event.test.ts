// One attempt on the wire against real receivers on loopback, resolving through a real DNS server
// (test-dns-server.ts): the address judged is the address connected to, judged again at every
// attempt, and a redirect is an answer, never followed.
import { Resolver } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressPolicy } from './address-policy.js';
import { BODY_START_BYTES, postEvent } from './post-event.js';
import { TestDnsServer } from './test-dns-server.js';

let dns: TestDnsServer;
let resolver: Resolver;
const zone: Record<string, string[]> = { 'hook.test': ['127.0.0.1'] };
let receiver: Server;
let elsewhere: Server;
const hits: string[] = [];

async function listen(
  name: string,
  answer: (res: import('node:http').ServerResponse) => void,
): Promise<Server> {
  const server = createServer((req, res) => {
    hits.push(`${name} ${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
/** The receiver's answer: longer than the start of it that is kept. */
const MOVED = `Moved\0elsewhere. ${'x'.repeat(400)}`;
const portOf = (server: Server) => (server.address() as AddressInfo).port;

beforeAll(async () => {
  dns = await TestDnsServer.start((name) => zone[name] ?? []);
  resolver = new Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([dns.address]);
  elsewhere = await listen('elsewhere', (res) => res.end());
  receiver = await listen('receiver', (res) => {
    res.statusCode = 302;
    res.setHeader('location', `http://127.0.0.1:${portOf(elsewhere)}/stolen`);
    res.end(MOVED);
  });
});
afterAll(async () => {
  await dns.close();
  await new Promise((resolve) => receiver.close(resolve));
  await new Promise((resolve) => elsewhere.close(resolve));
});

const attempt = (url: string, allow: string[]) => ({
  url,
  body: '{}',
  headers: {},
  timeoutMs: 5_000,
  policy: new AddressPolicy(allow, { resolver }),
});

describe('postEvent', () => {
  it('answers a redirect with its status and follows it nowhere', async () => {
    hits.length = 0;
    const result = await postEvent(attempt(`http://127.0.0.1:${portOf(receiver)}/hook`, ['127.0.0.0/8']));
    // The NUL kept as U+FFFD: PostgreSQL's text cannot hold it.
    expect(result).toEqual({
      status: 302,
      bodyStart: MOVED.slice(0, BODY_START_BYTES).replace('\0', '\uFFFD'),
    });
    expect(hits).toEqual(['receiver POST /hook']);
  });

  it('connects to the address it judged, not to whatever a second lookup says', async () => {
    // Only the test's DNS server knows hook.test: the system resolver, asked again, would fail.
    hits.length = 0;
    dns.questions.length = 0;
    const result = await postEvent(attempt(`http://hook.test:${portOf(receiver)}/pinned`, ['127.0.0.0/8']));
    expect(result).toMatchObject({ status: 302 });
    expect(hits).toEqual(['receiver POST /pinned']);
    expect(dns.questions.sort()).toEqual(['hook.test A', 'hook.test AAAA']);
  });

  it('judges the name again at each attempt: rebound to a refused address, it connects nowhere', async () => {
    hits.length = 0;
    zone['hook.test'] = ['10.0.0.1'];
    try {
      const result = await postEvent(
        attempt(`http://hook.test:${portOf(receiver)}/rebound`, ['127.0.0.0/8']),
      );
      expect(result).toEqual({ error: expect.stringMatching(/10\.0\.0\.1 is private/) });
      expect(hits).toEqual([]);
    } finally {
      zone['hook.test'] = ['127.0.0.1'];
    }
  });

  it('refuses an address literal that is not allowed, before connecting', async () => {
    hits.length = 0;
    const result = await postEvent(attempt(`http://127.0.0.1:${portOf(receiver)}/hook`, []));
    expect(result).toEqual({ error: expect.stringMatching(/127\.0\.0\.1 is loopback/) });
    expect(hits).toEqual([]);
  });
});
