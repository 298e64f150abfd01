// One webhook attempt on the wire (openapi.yaml, "Webhooks", Delivery): a POST of the event's body,
// answered 2xx within the timeout or failed. Redirects are never followed (Node's http does not, and
// a 3xx counts as a failure). The host is resolved and judged again for this attempt
// (webhook-target.ts), with the host's interface addresses as they are now, and the socket connects
// to exactly that address: the request's `lookup` hands it over instead of asking DNS again.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { AddressPolicy } from './address-policy.js';
import { type WebhookTarget, webhookTarget } from './webhook-target.js';

export interface Attempt {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  policy: AddressPolicy;
}

/** How much of a receiver's answer is kept, for its owner to read on the webhooks page. */
export const BODY_START_BYTES = 256;

/** The receiver's status and the start of its answer's body, or why there was none. */
export type AttemptResult = { status: number; bodyStart: string } | { error: string };

/** A `lookup` that answers every question with the address already judged. */
export function pinnedLookup(target: WebhookTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all)
      return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    callback(null, target.address, target.family);
  };
}

export async function postEvent(attempt: Attempt): Promise<AttemptResult> {
  const url = new URL(attempt.url);
  let target: WebhookTarget;
  try {
    target = await webhookTarget(url, attempt.policy);
  } catch (error) {
    return { error: (error as Error).message };
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        ...attempt.headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(attempt.body)),
      },
      lookup: pinnedLookup(target),
      // One connection per attempt: nothing is kept open to a receiver between events.
      agent: false,
    });
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${attempt.timeoutMs / 1000} seconds`)),
      attempt.timeoutMs,
    );
    req.on('response', (res) => {
      // Its start is kept for the owner to read; the rest is read away (bounded by the timeout).
      const kept: Buffer[] = [];
      let keptBytes = 0;
      res.on('data', (chunk: Buffer) => {
        if (keptBytes >= BODY_START_BYTES) return;
        kept.push(chunk.subarray(0, BODY_START_BYTES - keptBytes));
        keptBytes += chunk.length;
      });
      res.on('end', () => {
        clearTimeout(timer);
        // A character cut at the limit reads as U+FFFD, which is fine for a glance; so does a NUL,
        // which PostgreSQL's text cannot hold (the attempt's record, and its outcome, would fail).
        const bodyStart = Buffer.concat(kept).toString('utf8').replaceAll('\0', '\uFFFD');
        resolve({ status: res.statusCode ?? 0, bodyStart });
      });
      res.on('error', () => {});
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      resolve({ error: error.message });
    });
    req.end(attempt.body);
  });
}
