// The request loop: one attempt = build the body, fetch under a per-attempt timeout and the caller's
// signal, turn a non-2xx answer into a typed error, read the body. Failed attempts are retried by
// the policy of retry.ts, after an abortable sleep.
import type { WithResponse } from '../api-promise.js';
import {
  AbortError,
  AuthenticationError,
  ConnectionError,
  CorsRefusalError,
  InvalidInputError,
  PdnError,
  TimeoutError,
} from '../errors.js';
import { VERSION } from '../version.js';
import { corsRefusedOrigin } from './cors-refusal.js';
import { errorFromResponse } from './error-from-response.js';
import { type Logger, loggable } from './logger.js';
import { encodeMultipart, type MultipartField } from './multipart.js';
import { retryDelay, shouldRetry } from './retry.js';
import type { Runtime } from './runtime.js';
import { sleep } from './sleep.js';
import { countUpload, type UploadProgress } from './upload-progress.js';
import { buffered, type UploadPart } from './uploads.js';
import { resolveUrl } from './url.js';

export interface RetryInfo {
  /** Which retry is about to be made: 1 for the first. */
  attempt: number;
  /** How long the SDK waits before making it. */
  delayMs: number;
  /** Why the previous attempt failed. */
  error: PdnError;
}

export interface Transport {
  fetch: typeof fetch;
  baseUrl: string;
  apiKey: string | undefined;
  timeoutMs: number;
  maxRetries: number;
  maxRetryAfterMs: number;
  onRetry: ((info: RetryInfo) => void) | undefined;
  /** The client's `headers`, sent with every request. */
  headers: Headers;
  runtime: Runtime;
  logger: Logger;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** Milliseconds per attempt; overrides the client's `timeout`. */
  timeout?: number | undefined;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number | undefined;
  /** Sent with this call, over the client's `headers` (README, "Headers"). */
  headers?: HeadersInput | undefined;
  /**
   * POSTs only: the call's `Idempotency-Key` (openapi.yaml, "Idempotency"). The SDK makes one per
   * call when none is given; either way every retry of the call sends the same one.
   */
  idempotencyKey?: string | undefined;
  /**
   * Uploads only: called as the request body goes out, with the bytes sent so far and the total.
   * Starts again from 0 when a retry resends the body. In browsers only at the start (0) and once
   * the server has answered (all of it): see upload-progress.ts.
   */
  onUploadProgress?: ((progress: UploadProgress) => void) | undefined;
}

/** What `new Headers()` takes: a plain object, a list of pairs or a Headers. */
export type HeadersInput = ConstructorParameters<typeof Headers>[0];

export type FormField = { name: string; value: string } | { name: string; part: UploadPart };

export interface RequestSpec<T> {
  method: 'GET' | 'POST' | 'DELETE';
  /** A path under the base URL (`/api/v1/compress`) or an absolute URL. */
  url: string;
  /** Sends the API key; downloads do not, their signature is the credential (openapi.yaml). */
  authenticated: boolean;
  /** Headers the SDK decides for this request (`Prefer: respond-async`), over the caller's. */
  headers?: Record<string, string>;
  form?: FormField[];
  /** Reads a 2xx response; runs inside the attempt, so the timeout and the signal cover it. */
  read(response: Response): Promise<T>;
  /** `read` returns the body as a stream, read after it returns: the caller's signal stays on it until done. */
  streamsBody?: boolean;
}

export async function send<T>(
  transport: Transport,
  spec: RequestSpec<T>,
  options: CallOptions = {},
): Promise<WithResponse<T>> {
  if (spec.authenticated && transport.apiKey === undefined) {
    throw new AuthenticationError('No API key: pass `apiKey` to new Pdn() or set PDN_API_KEY');
  }
  const { signal } = options;
  if (signal?.aborted) throw new AbortError({ cause: signal.reason });
  const maxRetries = options.maxRetries ?? transport.maxRetries;
  const timeoutMs = options.timeout ?? transport.timeoutMs;
  // One-shot streams are buffered only when they may have to be sent again (README, "Streams and
  // retries"), or when fetch cannot send a stream at all (browsers over HTTP/1.1, runtime.ts).
  const form =
    (maxRetries > 0 || !transport.runtime.streamsUploads) && spec.form
      ? await Promise.all(
          spec.form.map(async (f) => ('part' in f ? { ...f, part: await buffered(f.part, signal) } : f)),
        )
      : spec.form;
  const replayable = (form ?? []).every((field) => !('part' in field) || field.part.reusable);
  // Made once, before the loop (STYLE.md 21): a retry after a lost answer then gets the
  // first answer back instead of doing the work, and spending the quota, twice.
  const idempotencyKey =
    spec.method === 'POST' ? (options.idempotencyKey ?? globalThis.crypto.randomUUID()) : undefined;

  for (let retry = 1; ; retry++) {
    try {
      return await attempt(transport, { ...spec, ...(form ? { form } : {}) }, timeoutMs, {
        ...options,
        idempotencyKey,
      });
    } catch (error) {
      if (!replayable || retry > maxRetries || !shouldRetry(error)) throw error;
      const delayMs = retryDelay(error, retry, transport.maxRetryAfterMs);
      if (delayMs === undefined) {
        transport.logger.info(
          `${spec.method} ${loggable(spec.url)}: the server asks to wait longer than maxRetryAfter; not retrying`,
        );
        throw error;
      }
      transport.logger.info(
        `${spec.method} ${loggable(spec.url)}: retry ${retry} of ${maxRetries} in ${delayMs} ms after ${(error as PdnError).message}`,
      );
      transport.onRetry?.({ attempt: retry, delayMs, error: error as PdnError });
      await sleep(delayMs, signal);
    }
  }
}

async function attempt<T>(
  transport: Transport,
  spec: RequestSpec<T>,
  timeoutMs: number,
  options: CallOptions,
): Promise<WithResponse<T>> {
  const { signal } = options;
  if (signal?.aborted) throw new AbortError({ cause: signal.reason });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new TimeoutError(timeoutMs)), timeoutMs);
  const onAbort = (): void => controller.abort(new AbortError({ cause: signal?.reason }));
  signal?.addEventListener('abort', onAbort, { once: true });
  let keepSignal = false;
  try {
    const { init, progress } = await requestInit(transport, spec, controller.signal, options);
    const url = resolveUrl(transport.baseUrl, spec.url);
    const started = Date.now();
    transport.logger.debug(`${spec.method} ${loggable(url)}`);
    let response: Response;
    try {
      progress?.sending();
      response = await transport.fetch(url, init);
    } catch (cause) {
      // Without the query: a download URL's signature is a credential and messages end up in logs.
      const refused = controller.signal.aborted
        ? undefined
        : await corsRefusedOrigin(transport.fetch, url, cause);
      if (refused !== undefined) throw new CorsRefusalError(loggable(url), refused, { cause });
      throw new ConnectionError(`Could not reach ${loggable(url)}: ${describe(cause)}`, { cause });
    }
    // A 2xx means the server read the whole body; an error may have been sent before it did (413).
    if (response.ok) progress?.answered();
    transport.logger.debug(
      `${spec.method} ${loggable(url)}: ${response.status} in ${Date.now() - started} ms, request ${response.headers.get('x-request-id') ?? 'unknown'}`,
    );
    if (!response.ok) {
      const body = await readBody(() => response.json()).catch((error: unknown) => {
        if (error instanceof ConnectionError) throw error;
        return undefined; // not JSON: the factory falls back to the status
      });
      throw errorFromResponse(response.status, response.headers, body);
    }
    const result = await spec.read(response);
    if (spec.streamsBody === true && (result instanceof ReadableStream || result instanceof Response)) {
      // The caller's abort must still stop the body being read, and only until it is: a listener
      // left on a signal shared by many calls (the CLI's Ctrl-C) leaks, and Node warns past 10.
      keepSignal = true;
      const release = () => signal?.removeEventListener('abort', onAbort);
      if (result instanceof ReadableStream) return { data: releaseWhenDone(result, release) as T, response };
      return { data: releasingResponse(result, release) as T, response };
    }
    return { data: result, response };
  } catch (error) {
    // Once aborted, fetch and body reads fail with whatever they like; the reason says what happened.
    if (controller.signal.aborted && controller.signal.reason instanceof PdnError)
      throw controller.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
    if (!keepSignal) signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The headers of a request, later ones winning: the SDK's defaults (Accept, User-Agent where the
 * runtime lets a script set it), the client's `headers`, the call's `headers`; then what only the
 * SDK may decide (the request's own, such as `Prefer`; Authorization; and the multipart
 * Content-Type and Content-Length set below).
 */
function headersOf(transport: Transport, spec: RequestSpec<unknown>, options: CallOptions): Headers {
  const headers = new Headers({ accept: 'application/json' });
  const { userAgent } = transport.runtime;
  if (userAgent !== undefined) headers.set('user-agent', `pdn-sdk/${VERSION} ${userAgent}`);
  for (const extra of [transport.headers, new Headers(options.headers), new Headers(spec.headers)]) {
    for (const [name, value] of extra) headers.set(name, value);
  }
  if (headers.has('expect')) throw expectRefused();
  if (spec.authenticated) headers.set('authorization', `Bearer ${transport.apiKey}`);
  if (options.idempotencyKey !== undefined) headers.set('idempotency-key', options.idempotencyKey);
  return headers;
}

/**
 * fetch cannot send `Expect`: Node's (undici) fails the request ("expect header not supported"), which
 * would look like an unreachable server and be retried, and browsers drop it (a forbidden request
 * header in the Fetch standard). The SDK gets what it is for another way (README, "Uploads").
 */
function expectRefused(): InvalidInputError {
  return new InvalidInputError(
    'An Expect header cannot be sent through fetch. The SDK sends a Content-Length instead, so the server ' +
      'refuses an upload over your plan from its headers and the call fails at once (README, "Uploads").',
  );
}

/** Progress where fetch cannot report it (a Blob body in a browser): 0 at the start, all once answered. */
interface CoarseProgress {
  sending(): void;
  answered(): void;
}

async function requestInit(
  transport: Transport,
  spec: RequestSpec<unknown>,
  signal: AbortSignal,
  options: CallOptions,
): Promise<{ init: RequestInit; progress?: CoarseProgress }> {
  const { onUploadProgress } = options;
  const headers = headersOf(transport, spec, options);
  if (!spec.form) return { init: { method: spec.method, headers, signal } };
  const multipart = encodeMultipart(await openFields(spec.form));
  headers.set('content-type', multipart.contentType);
  // Only paths and Blobs reach here in a browser (send buffers streams there), so the body is a Blob.
  if (!transport.runtime.streamsUploads && multipart.body instanceof Blob) {
    const total = multipart.body.size;
    const init = { method: spec.method, headers, signal, body: multipart.body, redirect: 'error' as const };
    if (!onUploadProgress) return { init };
    return {
      init,
      progress: {
        sending: () => onUploadProgress({ loaded: 0, total }),
        answered: () => onUploadProgress({ loaded: total, total }),
      },
    };
  }
  const counted = onUploadProgress ? countUpload(multipart.body, onUploadProgress) : undefined;
  if (counted?.length !== undefined) headers.set('content-length', String(counted.length));
  const body = counted?.body ?? multipart.body;
  // `duplex: 'half'` is what fetch requires of a stream body (Fetch standard, RequestInit.duplex).
  // `redirect: 'error'`: with any other mode fetch clones the request to be able to follow a redirect,
  // and the clone tees the body, buffering the whole upload in memory (measured with Node 20's fetch:
  // 370 MB peak RSS for a 300 MB file, 86 MB with 'error'). The API's POSTs never redirect.
  return {
    init: {
      method: spec.method,
      headers,
      signal,
      body,
      redirect: 'error',
      ...(body instanceof Blob ? {} : { duplex: 'half' }),
    },
  };
}

/**
 * The form with every file part opened. All at once: a path costs a stat and an open, and a merge's 20
 * one after another took up to 15 ms before the first byte went out (in a merge benchmark). The
 * first part in form order that cannot be opened is the one reported, as when they were opened in turn.
 */
async function openFields(form: readonly FormField[]): Promise<MultipartField[]> {
  const opened = await Promise.allSettled(
    form.map(async (field): Promise<MultipartField> => {
      if ('value' in field) return field;
      const { filename, type } = field.part;
      return { name: field.name, filename, type, content: await field.part.open() };
    }),
  );
  return opened.map((outcome) => {
    if (outcome.status === 'rejected') throw outcome.reason;
    return outcome.value;
  });
}

/**
 * The request of `spec` with its answer handed over as it came, the body not read (ApiPromise's
 * `asResponse()`): error answers still become typed errors and are retried as usual.
 */
export function unreadSpec(spec: RequestSpec<unknown>): RequestSpec<Response> {
  return { ...spec, read: async (response) => response, streamsBody: true };
}

/** `response` with a body that calls `release` once read, failed or cancelled; a body-less one releases now. */
function releasingResponse(response: Response, release: () => void): Response {
  if (response.body === null) {
    release();
    return response;
  }
  const { status, statusText, headers } = response;
  return new Response(releaseWhenDone(response.body, release), { status, statusText, headers });
}

/** Passes `stream` through, calling `release` once it is read to the end, fails or is cancelled. */
function releaseWhenDone(
  stream: ReadableStream<Uint8Array>,
  release: () => void,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) {
          release();
          controller.close();
        } else controller.enqueue(next.value);
      } catch (error) {
        release();
        controller.error(error);
      }
    },
    async cancel(reason) {
      release();
      await reader.cancel(reason);
    },
  });
}

/** Reads a response body, calling a dropped connection a ConnectionError (so it is retried). */
export async function readBody<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (cause) {
    if (cause instanceof SyntaxError) throw cause;
    throw new ConnectionError(`Connection lost while reading the response: ${describe(cause)}`, { cause });
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // undici hides the useful part (ECONNREFUSED, other side closed) in `cause`.
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
