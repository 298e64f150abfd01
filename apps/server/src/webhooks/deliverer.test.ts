// The deliverer over the real SQLite stores, against a real HTTP receiver on loopback (allowed here as
// PDN_WEBHOOK_ALLOW_CIDRS=127.0.0.0/8 allows it), on a clock the test moves: attempts, their order, their
// signatures and the backoff between them, never wall time; the job ends it hears of; the timer it sets
// for a retry; and one user's receivers that never answer, beside another user's that does.
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from '@pdn/api-types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteForTest } from '../database/contract-harness.js';
import { LocalJobEvents } from '../jobs/job-events.js';
import type { JobRecord } from '../jobs/job-store.js';
import { createLogger } from '../logger.js';
import { AddressPolicy } from './address-policy.js';
import { ATTEMPT_CAPS } from './attempt-slots.js';
import { type Clock, RETRY_DELAYS_MS, WebhookDeliverer } from './deliverer.js';

interface Received {
  at: number;
  signature: string;
  eventId: string;
  body: string;
}

const T0 = Date.UTC(2026, 0, 1, 12);

/** A loopback receiver that accepts every request and never answers, until closed. */
async function stalledReceiver() {
  const held: (() => void)[] = [];
  const state = { requests: 0, ended: 0 };
  let waiting: { count: number; resolve: () => void } | undefined;
  const server = createServer((req) => {
    state.requests += 1;
    req.socket.on('close', () => {
      state.ended += 1;
    });
    held.push(() => req.socket.destroy());
    if (waiting && state.requests >= waiting.count) waiting.resolve();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/stalls`,
    state,
    /** Settles once `count` requests are held. */
    holding: (count: number) =>
      new Promise<void>((resolve) => {
        if (state.requests >= count) resolve();
        else waiting = { count, resolve };
      }),
    close: () => {
      for (const cut of held) cut();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('WebhookDeliverer', () => {
  let dataDir: string;
  let accounts: ReturnType<typeof openSqliteForTest>;
  let receiver: Server;
  let url: string;
  let answers: number[];
  let received: Received[];
  let clock: Clock & { time: number };
  let userId: number;
  let events: LocalJobEvents;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pdn-webhooks-'));
    clock = { time: T0, now: () => clock.time, after: () => () => {} };
    events = new LocalJobEvents();
    accounts = openSqliteForTest(dataDir, { now: () => clock.time });
    userId = (await accounts.users.ensure('ada', 'premium')).user.id;
    answers = [];
    received = [];
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      req.on('end', () => {
        received.push({
          at: clock.time,
          signature: String(req.headers['pdn-signature']),
          eventId: String(req.headers['pdn-event-id']),
          body,
        });
        res.statusCode = answers.shift() ?? 200;
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;
  });

  afterEach(async () => {
    await new Promise((resolve) => receiver.close(resolve));
    await accounts.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const deliverer = (allowLoopback = true) =>
    new WebhookDeliverer({
      deliveries: accounts.deliveries,
      secrets: accounts.webhookSecrets,
      jobs: accounts.jobs,
      events,
      view: (record) => ({ id: record.id, status: record.status }) as Job,
      log: createLogger('quiet'),
      policy: new AddressPolicy(allowLoopback ? ['127.0.0.0/8'] : []),
      clock,
    });
  const ended = (id: string, status: JobRecord['status'] = 'succeeded') =>
    ({ id, userId, status, finishedAt: clock.time }) as JobRecord;

  /** Whether `signature` carries a v1 made with `secret` over its `t` and `body`. */
  const signedWith = (signature: string, body: string, secret: string) => {
    const t = /^t=(\d+),/.exec(signature)?.[1];
    const want = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    return signature.split(',').includes(`v1=${want}`);
  };

  it('retries after 500, 500 and stops at the 200: three attempts, in order, each signed', async () => {
    answers = [500, 500, 200];
    const webhooks = deliverer();
    await webhooks.subscribe('job_a', userId, url);
    await webhooks.jobEnded(ended('job_a'));
    await webhooks.wake();
    expect(received.map((r) => r.at)).toEqual([T0]);
    // Not before the backoff has passed.
    clock.time += (RETRY_DELAYS_MS[0] ?? 0) - 1;
    await webhooks.wake();
    expect(received).toHaveLength(1);
    clock.time += 1;
    await webhooks.wake();
    clock.time += RETRY_DELAYS_MS[1] ?? 0;
    await webhooks.wake();
    clock.time += 24 * 60 * 60_000;
    await webhooks.wake();
    const first = T0 + (RETRY_DELAYS_MS[0] ?? 0);
    expect(received.map((r) => r.at)).toEqual([T0, first, first + (RETRY_DELAYS_MS[1] ?? 0)]);
    const secret = await accounts.webhookSecrets.current(userId);
    const [one] = received;
    for (const attempt of received) {
      expect(attempt.body).toBe(one?.body);
      expect(attempt.eventId).toBe(one?.eventId);
      expect(signedWith(attempt.signature, attempt.body, secret)).toBe(true);
      expect(attempt.signature).toMatch(new RegExp(`^t=${Math.floor(attempt.at / 1000)},v1=[0-9a-f]{64}$`));
    }
    expect(JSON.parse(one?.body ?? '')).toMatchObject({
      id: one?.eventId,
      type: 'job.succeeded',
      data: { job: { id: 'job_a', status: 'succeeded' } },
    });
    expect(await accounts.deliveries.get('job_a')).toMatchObject({ state: 'delivered', attempts: 3 });
    await webhooks.close();
  });

  it('gives up after the seventh attempt, about an hour after the first', async () => {
    answers = Array(10).fill(503);
    const webhooks = deliverer();
    await webhooks.subscribe('job_b', userId, url);
    await webhooks.jobEnded(ended('job_b', 'failed'));
    for (let step = 0; step < 10; step++) {
      await webhooks.wake();
      clock.time += 60 * 60_000;
    }
    expect(received).toHaveLength(7);
    const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total / 60_000).toBeCloseTo(60.6, 0);
    expect(JSON.parse(received[0]?.body ?? '')).toMatchObject({ type: 'job.failed' });
    expect(await accounts.deliveries.get('job_b')).toMatchObject({ state: 'failed', attempts: 7 });
  });

  it('signs with both secrets while one is being rotated', async () => {
    const webhooks = deliverer();
    const old = await accounts.webhookSecrets.current(userId);
    const rotated = await accounts.webhookSecrets.rotate(userId);
    await webhooks.subscribe('job_c', userId, url);
    await webhooks.jobEnded(ended('job_c', 'canceled'));
    await webhooks.wake();
    const [attempt] = received;
    expect(attempt?.signature.split(',')).toHaveLength(3);
    expect(signedWith(attempt?.signature ?? '', attempt?.body ?? '', old)).toBe(true);
    expect(signedWith(attempt?.signature ?? '', attempt?.body ?? '', rotated)).toBe(true);
  });

  it('does not follow a redirect, and refuses a loopback receiver when connecting without it allowed', async () => {
    answers = [302];
    const webhooks = deliverer();
    await webhooks.subscribe('job_d', userId, url);
    await webhooks.jobEnded(ended('job_d'));
    await webhooks.wake();
    expect(received).toHaveLength(1);
    expect(await accounts.deliveries.get('job_d')).toMatchObject({ state: 'due', attempts: 1 });

    // As if the name had resolved to a public address at submission and to loopback now.
    const strict = deliverer(false);
    await strict.subscribe('job_e', userId, url.replace('127.0.0.1', 'localhost'));
    await strict.jobEnded(ended('job_e'));
    await strict.wake();
    expect(received).toHaveLength(1);
    expect(await accounts.deliveries.get('job_e')).toMatchObject({ state: 'due', attempts: 1 });
  });

  it('makes no event for a job without a callback, and after a restart sends the events of jobs that ended meanwhile', async () => {
    const webhooks = deliverer();
    await webhooks.jobEnded(ended('job_none'));
    await webhooks.wake();
    expect(received).toEqual([]);
    await webhooks.subscribe('job_f', userId, url);
    const job = await accounts.jobs.create(
      { id: 'job_f', userId, operation: 'merge', mode: 'async', input: { files: [], params: {} } },
      clock.time,
    );
    await accounts.jobs.finish(job.id, { status: 'canceled' }, clock.time);
    await webhooks.subscribe('job_never_stored', userId, url);
    const restarted = deliverer();
    await restarted.start();
    await restarted.wake();
    expect(received.map((r) => JSON.parse(r.body).type)).toEqual(['job.canceled']);
    expect(await accounts.deliveries.get('job_never_stored')).toBeUndefined();
  });

  it("hears of the ends this process records from the jobs' events, not of those heard from elsewhere", async () => {
    const webhooks = deliverer();
    await webhooks.start();
    try {
      for (const id of ['job_here', 'job_elsewhere']) await webhooks.subscribe(id, userId, url);
      events.emit({ id: 'job_elsewhere' });
      events.emit({ id: 'job_here', record: { ...ended('job_here'), mode: 'async' } });
      // The end is recorded for its webhook in the turns after the event.
      for (let turn = 0; turn < 20 && (await accounts.deliveries.get('job_here'))?.state !== 'due'; turn += 1)
        await new Promise((resolve) => setImmediate(resolve));
      await webhooks.wake();
      expect(received.map((r) => JSON.parse(r.body).data.job.id)).toEqual(['job_here']);
      expect(await accounts.deliveries.get('job_elsewhere')).toMatchObject({ state: 'waiting' });
    } finally {
      await webhooks.close();
    }
  });

  it('retries on a timer set for the retry, and the timer going off makes the attempt', async () => {
    const timers: { ms: number; run: () => void }[] = [];
    clock.after = (ms, run) => {
      timers.push({ ms, run });
      return () => {};
    };
    answers = [500, 200];
    const webhooks = deliverer();
    await webhooks.subscribe('job_t', userId, url);
    await webhooks.jobEnded(ended('job_t'));
    await webhooks.wake();
    expect(received).toHaveLength(1);
    const retry = timers.at(-1);
    expect(retry?.ms).toBe(RETRY_DELAYS_MS[0]);
    clock.time += retry?.ms ?? 0;
    const arrival = once(receiver, 'request');
    retry?.run();
    await arrival;
    await webhooks.close();
    expect(received.map((r) => r.at)).toEqual([T0, T0 + (RETRY_DELAYS_MS[0] ?? 0)]);
    expect(await accounts.deliveries.get('job_t')).toMatchObject({ state: 'delivered', attempts: 2 });
  });

  it("delivers another user's event while one user's 60 receivers hold their connections unanswered", async () => {
    const stalled = await stalledReceiver();
    const bob = (await accounts.users.ensure('bob', 'premium')).user.id;
    const webhooks = deliverer();
    try {
      for (let i = 0; i < 60; i++) {
        const jobId = `job_stalled_${String(i).padStart(2, '0')}`;
        await accounts.deliveries.subscribe(jobId, bob, stalled.url, clock.time);
        await accounts.deliveries.ready(jobId, { id: `evt_${i}`, body: '{}' }, clock.time);
      }
      void webhooks.wake();
      await stalled.holding(ATTEMPT_CAPS.user);
      clock.time += 1;
      const arrival = once(receiver, 'request');
      await webhooks.subscribe('job_prompt', userId, url);
      await webhooks.jobEnded(ended('job_prompt'));
      await arrival;
      // It came while every stalled attempt still waited for its answer, and Bob's took only his share.
      expect(stalled.state).toEqual({ requests: ATTEMPT_CAPS.user, ended: 0 });
      const due = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          accounts.deliveries.get(`job_stalled_${String(i).padStart(2, '0')}`),
        ),
      );
      expect(due.filter((delivery) => delivery?.attempts === 0)).toHaveLength(60 - ATTEMPT_CAPS.user);
    } finally {
      await stalled.close();
      await webhooks.close();
    }
    expect(await accounts.deliveries.get('job_prompt')).toMatchObject({ state: 'delivered', attempts: 1 });
  });
});
