// The `Pdn-Signature` header of a webhook attempt (openapi.yaml, "Webhooks"; Stripe's scheme, STYLE.md
// 21): `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, one `v1` per secret that signs (two
// while a rotated secret is still valid), so a receiver holding either can verify.
import { createHmac } from 'node:crypto';

export function signatureHeader(body: string, secrets: readonly string[], unixSeconds: number): string {
  const signed = `${unixSeconds}.${body}`;
  const v1 = secrets.map((secret) => `v1=${createHmac('sha256', secret).update(signed).digest('hex')}`);
  return [`t=${unixSeconds}`, ...v1].join(',');
}
