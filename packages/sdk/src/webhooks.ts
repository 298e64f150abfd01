// verifyWebhook (openapi.yaml, "Webhooks"; STYLE.md 21, after openai-node's
// src/lib/webhook-signature.ts): checks a `Pdn-Signature: t=<unix>,v1=<hex>[,v1=...]` header against
// the raw body with Web Crypto, so it runs wherever the SDK does. A v1 made with `secret` over
// "<t>.<body>" must be among the header's (any one of several, as while a secret rotates), compared in
// constant time (crypto.subtle.verify), and `t` must be within the tolerance of the receiver's clock, so
// a captured event cannot be replayed later.
import type { WebhookEvent } from './api-types/index.js';
import { WebhookVerificationError } from './errors.js';

export type { WebhookEvent };

export interface VerifyWebhookOptions {
  /** How far `t` may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch; defaults to Date.now (for tests). */
  now?: () => number;
}

const encoder = new TextEncoder();

function hexBytes(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[0-9a-f]{64}$/.test(hex)) return undefined;
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/**
 * Returns the event when `header` signs `rawBody` with `secret`; throws WebhookVerificationError
 * otherwise. Pass the body exactly as received (before any JSON parsing).
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const tolerance = options.toleranceSeconds ?? 300;
  const now = (options.now ?? Date.now)();
  if (!header) throw new WebhookVerificationError('No Pdn-Signature header');
  const items = header.split(',').map((item) => item.trim());
  const t = items.find((item) => item.startsWith('t='))?.slice(2);
  if (t === undefined || !/^[0-9]{1,12}$/.test(t))
    throw new WebhookVerificationError('Pdn-Signature has no timestamp (t=)');
  if (Math.abs(now / 1000 - Number(t)) > tolerance)
    throw new WebhookVerificationError(
      `Pdn-Signature's timestamp is more than ${tolerance} seconds from now`,
    );
  const signatures = items.filter((item) => item.startsWith('v1=')).map((item) => hexBytes(item.slice(3)));
  if (signatures.length === 0) throw new WebhookVerificationError('Pdn-Signature has no v1 signature');
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const signed = new Uint8Array(t.length + 1 + body.length);
  signed.set(encoder.encode(`${t}.`));
  signed.set(body, t.length + 1);
  const key = await globalThis.crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  for (const signature of signatures) {
    if (signature && (await globalThis.crypto.subtle.verify('HMAC', key, signature, signed))) {
      const text = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
      return JSON.parse(text) as WebhookEvent;
    }
  }
  throw new WebhookVerificationError('No Pdn-Signature v1 matches this body and secret');
}
