// One webhook attempt on the wire (openapi.yaml, "Webhooks", Delivery): a POST of the event's body,
// answered 2xx within the timeout or failed. Redirects are never followed (Node's http does not, and
// a 3xx counts as a failure); the socket connects only to addresses guardedLookup lets through, and
// an address literal in the URL, which Node connects to without a lookup, is checked here.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isPrivateAddress, PrivateAddressError } from './address-policy.js';

export interface Attempt {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivate: boolean;
}

/** The receiver's status, or why there was none. */
export type AttemptResult = { status: number } | { error: string };

export function postEvent(attempt: Attempt): Promise<AttemptResult> {
  const url = new URL(attempt.url);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!attempt.allowPrivate && isIP(host) !== 0 && isPrivateAddress(host))
    return Promise.resolve({ error: new PrivateAddressError(host, host).message });
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        ...attempt.headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(attempt.body)),
      },
      lookup: guardedLookup(attempt.allowPrivate),
      // One connection per attempt: nothing is kept open to a receiver between events.
      agent: false,
    });
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${attempt.timeoutMs / 1000} seconds`)),
      attempt.timeoutMs,
    );
    req.on('response', (res) => {
      // The answer's body says nothing we use: read it away (bounded by the timeout) and close.
      res.resume();
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0 });
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
