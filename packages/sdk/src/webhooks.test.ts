import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { WebhookVerificationError } from './errors.js';
import { verifyWebhook } from './webhooks.js';

const secret = 'whsec_test';
const body = JSON.stringify({
  id: 'evt_1',
  type: 'job.succeeded',
  created_at: '2026-01-01T00:00:00.000Z',
  data: {},
});
const t = 1_767_225_600;
const now = () => t * 1000;
const v1 = (key: string, at = t, text = body) =>
  createHmac('sha256', key).update(`${at}.${text}`).digest('hex');

describe('verifyWebhook', () => {
  it('returns the event for a good signature, from a string or bytes', async () => {
    const header = `t=${t},v1=${v1(secret)}`;
    expect(await verifyWebhook(body, header, secret, { now })).toMatchObject({ id: 'evt_1' });
    expect(await verifyWebhook(new TextEncoder().encode(body), header, secret, { now })).toMatchObject({
      id: 'evt_1',
    });
  });

  it('accepts any one of several v1 (a secret being rotated)', async () => {
    const header = `t=${t},v1=${v1('whsec_new')},v1=${v1(secret)}`;
    expect(await verifyWebhook(body, header, secret, { now })).toMatchObject({ id: 'evt_1' });
    expect(await verifyWebhook(body, header, 'whsec_new', { now })).toMatchObject({ id: 'evt_1' });
  });

  it.each<[string, string | undefined, string, number?]>([
    ['no header', undefined, /No Pdn-Signature/.source],
    ['no timestamp', `v1=${v1(secret)}`, /timestamp/.source],
    ['no v1', `t=${t}`, /no v1/.source],
    [
      'a tampered body',
      `t=${t},v1=${v1(secret, t, body.replace('succeeded', 'failed'))}`,
      /No Pdn-Signature v1 matches/.source,
    ],
    ['another secret', `t=${t},v1=${v1('whsec_other')}`, /matches/.source],
    ['a stale timestamp', `t=${t - 301},v1=${v1(secret, t - 301)}`, /more than 300 seconds/.source],
    ['a timestamp in the future', `t=${t + 301},v1=${v1(secret, t + 301)}`, /more than 300/.source],
    ['a signature over another timestamp', `t=${t},v1=${v1(secret, t - 1)}`, /matches/.source],
    ['a malformed v1', `t=${t},v1=xyz`, /matches/.source],
  ])('refuses %s', async (_, header, message) => {
    const result = verifyWebhook(body, header, secret, { now });
    await expect(result).rejects.toBeInstanceOf(WebhookVerificationError);
    await expect(result).rejects.toThrow(new RegExp(message));
  });

  it('takes a wider tolerance when asked', async () => {
    const header = `t=${t - 600},v1=${v1(secret, t - 600)}`;
    expect(await verifyWebhook(body, header, secret, { now, toleranceSeconds: 900 })).toMatchObject({
      id: 'evt_1',
    });
  });
});
