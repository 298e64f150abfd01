// Checks one HTTP exchange against the OpenAPI document: the status is documented for the operation,
// the body matches the documented media type and schema, documented headers are present and match
// their schemas, plus the rules the document states in prose (X-Request-Id equals meta.request_id,
// how Enterprise's "unlimited" shows, no rate-limit headers on 401, Retry-After on 429, downloads are
// attachments). Returns every violation found, as sentences; an empty list means the exchange conforms.
import { isUtf8 } from 'node:buffer';
import {
  describeErrors,
  errorResponseSchema,
  findOperation,
  type HeaderObject,
  type ResponseObject,
  resolve,
  validatorFor,
} from './openapi-document.js';

export interface Exchange {
  method: string;
  /** Absolute URL, or a path with its query. */
  url: string;
  status: number;
  headers: Headers;
  body: Uint8Array;
  /** When the request was sent (ms since the epoch); the rate-limit decision lies between then and now. */
  sentAt?: number;
  /**
   * The HTTP layer refused the request before any route saw it (not valid HTTP/1.1, or no Host): the
   * document's "Errors from the HTTP layer" govern the answer on any path, not the operation's
   * responses, and no rate-limit header may appear, as nobody was authenticated.
   */
  refusedByHttpLayer?: boolean;
}

/** The wire codes each error status may carry (OpenAPI `ErrorCode`). */
export const CODES_FOR_STATUS: Readonly<Record<number, readonly string[]>> = {
  400: ['invalid_input'],
  401: ['unauthorized'],
  403: ['forbidden'],
  404: ['not_found'],
  405: ['method_not_allowed'],
  409: ['idempotency_in_progress'],
  410: ['expired'],
  413: ['payload_too_large'],
  422: ['idempotency_key_reused'],
  408: ['request_timeout'],
  417: ['invalid_input'],
  // too_many_jobs: the cap on unfinished jobs, not the hourly limit.
  429: ['rate_limited', 'too_many_jobs'],
  431: ['invalid_input'],
  500: ['internal_error'],
  // The operation's converter (LibreOffice, Chromium) is not installed on this server.
  501: ['converter_unavailable'],
  // server_busy: the bound on synchronous work waiting for a slot, not a shutdown.
  503: ['service_unavailable', 'server_busy'],
  507: ['insufficient_storage'],
};

/** Statuses whose envelope carries `error.retry_after_seconds`, and the only ones that may (`Error`). */
const RETRY_HINT_STATUSES = new Set([409, 503, 507]);

/**
 * Statuses the HTTP layer may answer on any path, for requests it cannot parse or that are too slow
 * or too large before any route sees them (document description, "Errors from the HTTP layer"), and
 * the refusals of a server shutting down ("Storage and shutdown").
 */
const HTTP_LAYER_STATUSES = new Set([400, 408, 413, 417, 431, 503]);

const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
];

export function checkExchange(exchange: Exchange): string[] {
  const { pathname } = new URL(exchange.url, 'http://pdn.invalid');
  const where = `${exchange.method} ${pathname} -> ${exchange.status}`;
  const problems: string[] = [];
  const json = parseJson(exchange, problems);
  const match = findOperation(exchange.method, pathname);
  const documented =
    match.kind === 'operation' && exchange.refusedByHttpLayer !== true
      ? (match.operation.responses[String(exchange.status)] ?? match.operation.responses.default)
      : undefined;

  if (!documented) {
    // Not an answer the operation lists: only the promises the document makes for every path apply
    // (description: unknown routes 404, wrong methods 405 with Allow, HTTP-layer errors).
    const expected =
      match.kind === 'no-path' ? [404] : match.kind === 'no-method' ? [405] : [...HTTP_LAYER_STATUSES];
    if (match.kind !== 'operation' && HTTP_LAYER_STATUSES.has(exchange.status))
      expected.push(exchange.status);
    if (!expected.includes(exchange.status)) {
      const what =
        match.kind === 'operation' ? `operation ${match.operation.operationId}` : `this ${match.kind}`;
      problems.push(`status ${exchange.status} is not documented for ${what}`);
    }
    if (match.kind === 'no-method' && exchange.status === 405)
      checkAllow(exchange.headers, match.allowed, problems);
    checkErrorEnvelope(json, exchange.status, problems);
    checkRequestId(exchange.headers, json, problems);
    checkRetryAfterOnlyOn429(exchange, problems);
    if (exchange.refusedByHttpLayer)
      checkNoRateLimitHeaders(exchange, 'an answer of the HTTP layer', problems);
    return problems.map((p) => `${where}: ${p}`);
  }
  const response = resolve<ResponseObject>(documented);
  checkHeaders(response, exchange.headers, problems);
  checkBody(response, exchange, json, problems);
  checkRequestId(exchange.headers, json, problems);
  if (exchange.status >= 400) checkErrorEnvelope(json, exchange.status, problems);
  checkRateLimitRules(exchange, problems);
  checkRetryAfterOnlyOn429(exchange, problems);
  if (
    match.kind === 'operation' &&
    match.operation.operationId === 'downloadPdf' &&
    exchange.status === 200
  ) {
    checkDownload(exchange, problems);
  }
  return problems.map((p) => `${where}: ${p}`);
}

/** "an `Allow` header naming the methods it does offer" (RFC 9110 section 15.5.6). */
function checkAllow(headers: Headers, allowed: readonly string[], problems: string[]): void {
  const named = (headers.get('allow') ?? '')
    .split(',')
    .map((method) => method.trim().toUpperCase())
    .filter((method) => method !== '');
  if ([...named].sort().join() !== [...allowed].sort().join()) {
    problems.push(`Allow ${JSON.stringify(headers.get('allow'))} should name ${allowed.join(', ')}`);
  }
}

function mediaType(headers: Headers): string {
  return (headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function parseJson(exchange: Exchange, problems: string[]): unknown {
  if (mediaType(exchange.headers) !== 'application/json') return undefined;
  try {
    return JSON.parse(Buffer.from(exchange.body).toString('utf8'));
  } catch {
    problems.push('Content-Type is application/json but the body is not JSON');
    return undefined;
  }
}

function checkHeaders(response: ResponseObject, headers: Headers, problems: string[]): void {
  for (const [name, reference] of Object.entries(response.headers ?? {})) {
    const header = resolve<HeaderObject>(reference);
    const value = headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`documented header ${name} is missing`);
      continue;
    }
    if (!header.schema) continue;
    const validate = validatorFor(header.schema);
    const typed = 'type' in header.schema && header.schema.type === 'integer' ? Number(value) : value;
    if (!validate(typed))
      problems.push(`header ${name}: ${JSON.stringify(value)} ${describeErrors(validate)}`);
  }
}

function checkBody(response: ResponseObject, exchange: Exchange, json: unknown, problems: string[]): void {
  const content = response.content;
  if (!content) {
    if (exchange.body.length > 0) problems.push('a body was sent where the document describes none');
    return;
  }
  const type = mediaType(exchange.headers);
  const documented = content[type];
  if (!documented) {
    problems.push(`Content-Type ${JSON.stringify(type)} is not one of ${Object.keys(content).join(', ')}`);
    return;
  }
  if (type !== 'application/json' || !documented.schema || json === undefined) return;
  const validate = validatorFor(documented.schema);
  if (!validate(json)) problems.push(`body does not match the schema: ${describeErrors(validate)}`);
}

function checkErrorEnvelope(json: unknown, status: number, problems: string[]): void {
  const validate = validatorFor(errorResponseSchema);
  if (!validate(json)) {
    problems.push(`error body is not the envelope: ${describeErrors(validate)}`);
    return;
  }
  const { code, retry_after_seconds: hint } = (
    json as { error: { code: string; retry_after_seconds?: number } }
  ).error;
  const expected = CODES_FOR_STATUS[status];
  if (expected && !expected.includes(code))
    problems.push(`error.code ${code} where status ${status} means ${expected.join(' or ')}`);
  if (RETRY_HINT_STATUSES.has(status) !== (hint !== undefined)) {
    problems.push(
      `error.retry_after_seconds is ${hint === undefined ? 'missing' : 'present'} on a ${status}; it goes with 409, 503 and 507 only`,
    );
  }
}

/**
 * "every response carries the same value in the X-Request-Id header" (document description). Whether
 * a body must have `meta` is its schema's business (every envelope requires it; /openapi.json is the
 * document itself); when it has one, the ids must agree.
 */
function checkRequestId(headers: Headers, json: unknown, problems: string[]): void {
  const header = headers.get('x-request-id');
  if (!header) problems.push('X-Request-Id header is missing');
  const meta = (json as { meta?: { request_id?: unknown } } | undefined)?.meta;
  if (meta !== undefined && meta.request_id !== header) {
    problems.push(
      `X-Request-Id ${JSON.stringify(header)} differs from meta.request_id ${JSON.stringify(meta.request_id)}`,
    );
  }
}

/** "The spec sends Retry-After only on 429": other retry hints live in the envelope. */
function checkRetryAfterOnlyOn429(exchange: Exchange, problems: string[]): void {
  if (exchange.status !== 429 && exchange.headers.has('retry-after'))
    problems.push(`a ${exchange.status} carries Retry-After, which only 429 sends`);
}

function checkNoRateLimitHeaders(exchange: Exchange, what: string, problems: string[]): void {
  for (const name of RATE_LIMIT_HEADERS) {
    if (exchange.headers.has(name))
      problems.push(`${what} carries ${name}, but unauthenticated responses have no rate-limit headers`);
  }
}

/** The "Rate limits" section of the document's description, enforced on every response. */
function checkRateLimitRules(exchange: Exchange, problems: string[]): void {
  const h = exchange.headers;
  if (exchange.status === 401) {
    checkNoRateLimitHeaders(exchange, '401', problems);
    return;
  }
  const limit = h.get('x-ratelimit-limit');
  if (limit === null) return;
  const remaining = h.get('x-ratelimit-remaining');
  if (limit === 'unlimited') {
    if (remaining !== 'unlimited')
      problems.push(`Enterprise: X-RateLimit-Remaining is ${remaining}, not unlimited`);
    for (const name of ['RateLimit-Policy', 'RateLimit']) {
      if (h.has(name)) problems.push(`Enterprise: ${name} must be omitted`);
    }
    return;
  }
  if (Number(remaining) > Number(limit))
    problems.push(`X-RateLimit-Remaining ${remaining} exceeds the limit ${limit}`);
  const policy = h.get('ratelimit-policy');
  const current = h.get('ratelimit');
  if (policy !== `"hourly";q=${limit};w=3600`)
    problems.push(`RateLimit-Policy ${policy} does not state q=${limit}`);
  if (!current?.startsWith(`"hourly";r=${remaining};`))
    problems.push(`RateLimit ${current} does not state r=${remaining}`);
  // Only the hourly limit's 429 means the window is spent; too_many_jobs leaves it as it stands.
  if (
    exchange.status === 429 &&
    remaining !== '0' &&
    !/"code":"too_many_jobs"/.test(Buffer.from(exchange.body).toString('utf8'))
  )
    problems.push(`429 rate_limited with X-RateLimit-Remaining ${remaining}`);
  // `t` (seconds to reset) and X-RateLimit-Reset (Unix time) describe the same moment, seen from the
  // moment the server took its decision: somewhere between sending the request and reading the answer
  // (an OCR can take seconds in between). Both are rounded up to whole seconds, hence the one-second
  // margins. Without a send time, the answer is taken to have come within 5 s.
  const secondsToReset = /;t=([0-9]+)$/.exec(current ?? '')?.[1];
  if (secondsToReset !== undefined) {
    const reset = Number(h.get('x-ratelimit-reset'));
    const now = Date.now() / 1000;
    const decidedAt = reset - Number(secondsToReset);
    const sentAt = exchange.sentAt === undefined ? now - 5 : exchange.sentAt / 1000;
    if (decidedAt < sentAt - 1 || decidedAt > now + 1) {
      problems.push(`RateLimit t=${secondsToReset} disagrees with X-RateLimit-Reset ${reset}`);
    }
  }
}

/** "streams application/pdf with Content-Disposition: attachment and the output's filename";
 * the text of OCR of documents as UTF-8 text/plain, the pages of PDF to images as PNG, JPEG
 * or a ZIP archive. */
function checkDownload(exchange: Exchange, problems: string[]): void {
  const disposition = exchange.headers.get('content-disposition') ?? '';
  if (!/^attachment;\s*filename\*?=/i.test(disposition)) {
    problems.push(`Content-Disposition ${JSON.stringify(disposition)} is not an attachment with a filename`);
  }
  const length = exchange.headers.get('content-length');
  if (length !== null && Number(length) !== exchange.body.length) {
    problems.push(`Content-Length ${length} but ${exchange.body.length} bytes arrived`);
  }
  const type = mediaType(exchange.headers);
  if (type === 'text/plain') {
    if (exchange.headers.get('content-type') !== 'text/plain; charset=utf-8')
      problems.push('a text download must say charset=utf-8');
    if (!isUtf8(exchange.body)) problems.push('the text download is not UTF-8');
    return;
  }
  // The pages of PDF to images: each type's own signature (PNG 5.2, JFIF's SOI, a ZIP local header).
  const magic = SIGNATURES[type] ?? PDF_SIGNATURE;
  if (!Buffer.from(exchange.body.subarray(0, magic.length)).equals(magic))
    problems.push(`the download is not what its type says (${type || 'none'})`);
}

const PDF_SIGNATURE = Buffer.from('%PDF-', 'latin1');
const SIGNATURES: Readonly<Record<string, Buffer>> = {
  'application/pdf': PDF_SIGNATURE,
  'image/png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/jpeg': Buffer.from([0xff, 0xd8, 0xff]),
  'application/zip': Buffer.from([0x50, 0x4b, 0x03, 0x04]),
};
