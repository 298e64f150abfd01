// The pdn client. Each operation is checked (so bad input fails before anything is sent) and turned
// into its request by internal/operations.ts, shared with `pdn.jobs` (jobs.ts), and handed to the
// request loop.
import { ApiPromise, type WithResponse } from './api-promise.js';
import type { Download } from './api-types/index.js';
import * as errors from './errors.js';
import { ExpiredError, InvalidInputError } from './errors.js';
import { callOf } from './internal/call.js';
import { readEnv } from './internal/env.js';
import { readEnvelope } from './internal/envelope.js';
import { loadOnce } from './internal/load-once.js';
import { defaultLogger, type Logger, type LogLevel, levelled } from './internal/logger.js';
import {
  type CompressParams,
  type HtmlToPdfParams,
  type ImagesToPdfParams,
  type MergeParams,
  type OcrParams,
  type OcrPdfParams,
  type OfficeToPdfParams,
  type Operation,
  type OperationParams,
  operationRequest,
  type PdfToImagesParams,
  type SplitParams,
} from './internal/operations.js';
import {
  type CallOptions,
  type HeadersInput,
  type RequestSpec,
  type RetryInfo,
  readBody,
  send,
  type Transport,
  unreadSpec,
} from './internal/request.js';
import { detectRuntime } from './internal/runtime.js';
import { resolveUrl } from './internal/url.js';
import { Jobs } from './jobs.js';
import { Login } from './login.js';
import type {
  AccountResult,
  CompressResult,
  HtmlToPdfResult,
  ImagesToPdfResult,
  LanguagesResult,
  MergeResult,
  OcrPdfResult,
  OcrResult,
  OcrWordsResult,
  OfficeToPdfResult,
  OperationResults,
  PdfToImagesResult,
  RevokedKeyResult,
  SplitResult,
} from './results.js';

/** Node only: loaded by the first download to a path, so node:fs stays off the main path. */
const downloadToPath = loadOnce(() => import('./internal/download-to-path.js'));

export interface PdnOptions {
  /** Defaults to the PDN_API_KEY environment variable. */
  apiKey?: string | undefined;
  /** Defaults to PDN_BASE_URL, else the local server of `npm start`, http://127.0.0.1:3000. */
  baseUrl?: string | undefined;
  /** Retries after the first attempt, on 408, 429, 5xx and connection errors (README, "Retries"). Default 2. */
  maxRetries?: number | undefined;
  /** Milliseconds per attempt, including reading the answer. Default 600000 (10 minutes). */
  timeout?: number | undefined;
  /** Longest Retry-After (seconds) worth waiting for; a longer one fails at once. Default 60. */
  maxRetryAfter?: number | undefined;
  /** Defaults to the global fetch, looked up at each call. */
  fetch?: typeof fetch | undefined;
  /** Called before each retry's wait, e.g. to log it. */
  onRetry?: ((info: RetryInfo) => void) | undefined;
  /** Sent with every request, under each call's `headers` (README, "Headers"). */
  headers?: HeadersInput | undefined;
  /** What reaches `logger`. Defaults to the PDN_LOG environment variable (Node), else `warn`. */
  logLevel?: LogLevel | undefined;
  /** Where log lines go. Default: stderr in Node (prefixed `[pdn-sdk]`), the console in browsers. */
  logger?: Logger | undefined;
}

export type RequestOptions = CallOptions;
export type {
  CompressParams,
  HtmlToPdfParams,
  ImagesToPdfParams,
  MergeParams,
  OcrParams,
  OcrPdfParams,
  OfficeToPdfParams,
  PdfToImagesParams,
  SplitParams,
};

export interface DownloadOptions extends RequestOptions {
  /** Replace an existing file at `path`. Default true; when false an existing file is an EEXIST error. */
  overwrite?: boolean | undefined;
}

export class Pdn {
  // The error family on the class too, as openai-node: `catch (e) { if (e instanceof
  // Pdn.RateLimitError) ... }` with only `Pdn` imported.
  static readonly PdnError = errors.PdnError;
  static readonly ApiError = errors.ApiError;
  static readonly InvalidInputError = errors.InvalidInputError;
  static readonly AuthenticationError = errors.AuthenticationError;
  static readonly ForbiddenError = errors.ForbiddenError;
  static readonly NotFoundError = errors.NotFoundError;
  static readonly ExpiredError = errors.ExpiredError;
  static readonly PayloadTooLargeError = errors.PayloadTooLargeError;
  static readonly RateLimitError = errors.RateLimitError;
  static readonly ServiceUnavailableError = errors.ServiceUnavailableError;
  static readonly ServerBusyError = errors.ServerBusyError;
  static readonly InsufficientStorageError = errors.InsufficientStorageError;
  static readonly ConverterUnavailableError = errors.ConverterUnavailableError;
  static readonly InternalServerError = errors.InternalServerError;
  static readonly ConnectionError = errors.ConnectionError;
  static readonly CorsRefusalError = errors.CorsRefusalError;
  static readonly TimeoutError = errors.TimeoutError;
  static readonly AbortError = errors.AbortError;
  static readonly WebhookVerificationError = errors.WebhookVerificationError;
  static readonly TooManyJobsError = errors.TooManyJobsError;
  static readonly JobCanceledError = errors.JobCanceledError;
  static readonly LoginRefusedError = errors.LoginRefusedError;

  readonly baseUrl: string;
  /** The operations as jobs, and `/api/v1/jobs` (README, "Jobs"). */
  readonly jobs: Jobs;
  /** Signing in from a browser (`pdn login`): a new key for a client made without one. */
  readonly login: Login;
  readonly #transport: Transport;

  constructor(options: PdnOptions = {}) {
    const maxRetries = options.maxRetries ?? 2;
    const timeout = options.timeout ?? 600_000;
    const maxRetryAfter = options.maxRetryAfter ?? 60;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) {
      throw new InvalidInputError(`maxRetries must be a whole number >= 0, got ${maxRetries}`);
    }
    if (!(timeout > 0))
      throw new InvalidInputError(`timeout must be a positive number of ms, got ${timeout}`);
    if (!(maxRetryAfter >= 0))
      throw new InvalidInputError(`maxRetryAfter must be >= 0 seconds, got ${maxRetryAfter}`);
    const baseUrl = options.baseUrl ?? readEnv('PDN_BASE_URL') ?? 'http://127.0.0.1:3000';
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    if (!/^https?:\/\/[^/]/i.test(this.baseUrl) || !URL.canParse(this.baseUrl)) {
      throw new InvalidInputError(
        `baseUrl must be an http(s) URL such as http://127.0.0.1:3000, got ${baseUrl}`,
      );
    }
    this.#transport = {
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      baseUrl: this.baseUrl,
      apiKey: options.apiKey ?? readEnv('PDN_API_KEY'),
      timeoutMs: timeout,
      maxRetries,
      maxRetryAfterMs: maxRetryAfter * 1000,
      onRetry: options.onRetry,
      headers: new Headers(options.headers),
      runtime: detectRuntime(),
      logger: levelled(options.logger ?? defaultLogger(), options.logLevel),
    };
    this.jobs = new Jobs(this.#transport);
    this.login = new Login(this.#transport);
  }

  /** POST /api/v1/compress */
  compress(params: CompressParams): ApiPromise<CompressResult> {
    return this.#run('compress', params);
  }

  /** POST /api/v1/merge */
  merge(params: MergeParams): ApiPromise<MergeResult> {
    return this.#run('merge', params);
  }

  /** POST /api/v1/split */
  split(params: SplitParams): ApiPromise<SplitResult> {
    return this.#run('split', params);
  }

  /** POST /api/v1/ocr; with `detail: 'words'` the result also has every word with its box. */
  ocr(params: OcrParams & { detail: 'words' }): ApiPromise<OcrWordsResult>;
  ocr(params: OcrParams): ApiPromise<OcrResult>;
  ocr(params: OcrParams): ApiPromise<OcrResult> {
    return this.#run('ocr', params);
  }

  /**
   * POST /api/v1/ocr/pdf: a scanned PDF or an image made a searchable PDF. The result has
   * two downloads, the PDF (`download`) and its text (`text_download`, served as `text/plain`).
   */
  ocrPdf(params: OcrPdfParams): ApiPromise<OcrPdfResult> {
    return this.#run('ocr_pdf', params);
  }

  /**
   * POST /api/v1/office-to-pdf: a Word, Excel, PowerPoint, OpenDocument or RTF document converted to PDF
   * by the server's LibreOffice. A server without it rejects with ConverterUnavailableError (501).
   */
  officeToPdf(params: OfficeToPdfParams): ApiPromise<OfficeToPdfResult> {
    return this.#run('office_to_pdf', params);
  }

  /**
   * POST /api/v1/images-to-pdf: images made one PDF, a page each in order, JPEG and JPEG 2000 kept as
   * they are and the rest losslessly.
   */
  imagesToPdf(params: ImagesToPdfParams): ApiPromise<ImagesToPdfResult> {
    return this.#run('images_to_pdf', params);
  }

  /**
   * POST /api/v1/pdf-to-images: a PDF's pages drawn as PNG or JPEG, a download per page in `pages`, or
   * one ZIP archive (`download`) with `output: 'zip'`.
   */
  pdfToImages(params: PdfToImagesParams): ApiPromise<PdfToImagesResult> {
    return this.#run('pdf_to_images', params);
  }

  /**
   * POST /api/v1/html-to-pdf: an HTML page, with the stylesheets, images and fonts it loads in
   * `assets`, printed to PDF by the server's Chromium (scripts off unless `javascript: true`). A server
   * without Chromium answers ConverterUnavailableError.
   */
  htmlToPdf(params: HtmlToPdfParams): ApiPromise<HtmlToPdfResult> {
    return this.#run('html_to_pdf', params);
  }

  /** GET /api/v1/languages */
  languages(options: RequestOptions = {}): ApiPromise<LanguagesResult> {
    return this.#call(
      () => ({ method: 'GET', url: '/api/v1/languages', authenticated: true, read: (r) => readEnvelope(r) }),
      options,
    );
  }

  /**
   * GET /api/v1/account: the plan, its hourly limit and the requests used in the rolling hour. Not
   * counted against the rate limit, so checking what is left never spends a call.
   */
  account(options: RequestOptions = {}): ApiPromise<AccountResult> {
    return this.#call(
      () => ({ method: 'GET', url: '/api/v1/account', authenticated: true, read: (r) => readEnvelope(r) }),
      options,
    );
  }

  /**
   * DELETE /api/v1/account/key: revokes the key this client calls with (what `pdn logout` does).
   * Every later call with it is answered 401. Not counted against the rate limit.
   */
  revokeKey(options: RequestOptions = {}): ApiPromise<RevokedKeyResult> {
    return this.#call(
      () => ({
        method: 'DELETE',
        url: '/api/v1/account/key',
        authenticated: true,
        read: (r) => readEnvelope(r),
      }),
      options,
    );
  }

  /**
   * Fetches an output. With `path`, streams it to that file atomically and resolves to the path;
   * without, resolves to its bytes. An expired download is refused without calling the server.
   */
  download(download: Download, path: string, options?: DownloadOptions): ApiPromise<string>;
  download(download: Download, path?: undefined, options?: DownloadOptions): ApiPromise<Uint8Array>;
  download(
    download: Download,
    path?: string,
    options: DownloadOptions = {},
  ): ApiPromise<string | Uint8Array> {
    const { overwrite = true, ...callOptions } = options;
    if (path === undefined) {
      return this.#call(
        () => downloadSpec(download, async (r) => new Uint8Array(await readBody(() => r.arrayBuffer()))),
        callOptions,
      );
    }
    return new ApiPromise({
      parsed: async (): Promise<WithResponse<string>> => {
        const { assertAbsent, discardTemp, openTemp, writeAtomically } = await downloadToPath();
        // The temp file is opened while the request goes out, not once the answer is in: the open
        // waits for a libuv thread (1.6 ms at the median of a small compress call's download on a
        // loaded machine, 11 at the 90th percentile), the server's answer takes longer than that. A
        // retry opens its own; one no attempt took is removed.
        let unused: ReturnType<typeof openTemp> | undefined;
        const spec = downloadSpec(download, (r) => {
          const opening = unused ?? openTemp(path);
          unused = undefined;
          return writeAtomically(bodyOf(r), opening, path, overwrite);
        });
        if (!overwrite) await assertAbsent(path);
        unused = openTemp(path);
        // Its failure is the attempt's to report, once the answer is in (as before the request went
        // out earlier); an attempt that fails first never sees it.
        unused.catch(() => undefined);
        try {
          const { response } = await send(this.#transport, spec, callOptions);
          return { data: path, response };
        } finally {
          if (unused !== undefined) await discardTemp(unused);
        }
      },
      // The answer unread, so nothing is written to `path`.
      unread: async () =>
        (await send(this.#transport, unreadSpec(downloadSpec(download, async () => undefined)), callOptions))
          .data,
    });
  }

  /** Fetches an output as a stream (e.g. for stdout). Retries apply until the answer starts. */
  downloadStream(download: Download, options: RequestOptions = {}): ApiPromise<ReadableStream<Uint8Array>> {
    return this.#call(
      () => ({ ...downloadSpec(download, async (r: Response) => bodyOf(r)), streamsBody: true }),
      options,
    );
  }

  /**
   * The absolute URL of an output, to hand to someone else (a browser, `curl`): the server answers
   * with a path (openapi.yaml `Download.url`), which this joins to `baseUrl` as requests do. It
   * needs no API key and works until `download.expires_at`.
   */
  downloadUrl(download: Download): string {
    return resolveUrl(this.baseUrl, download.url);
  }

  /** One of the operations, answered when done (without `Prefer: respond-async`). */
  #run<O extends Operation>(operation: O, params: OperationParams[O]): ApiPromise<OperationResults[O]> {
    return callOf(this.#transport, () => {
      const { url, form, options } = operationRequest(operation, params);
      const spec: RequestSpec<OperationResults[O]> = {
        method: 'POST',
        url,
        authenticated: true,
        form: form(),
        read: (r) => readEnvelope<OperationResults[O]>(r),
      };
      return { spec, options };
    });
  }

  /** Runs a call; `spec` may throw (validation), which rejects the returned promise. */
  #call<T>(spec: () => RequestSpec<T>, options: RequestOptions): ApiPromise<T> {
    return callOf(this.#transport, () => ({ spec: spec(), options }));
  }
}

// The statics above as types too, so `error as Pdn.RateLimitError` reads like `instanceof Pdn.RateLimitError`.
export declare namespace Pdn {
  type PdnError = errors.PdnError;
  type ApiError = errors.ApiError;
  type InvalidInputError = errors.InvalidInputError;
  type AuthenticationError = errors.AuthenticationError;
  type ForbiddenError = errors.ForbiddenError;
  type NotFoundError = errors.NotFoundError;
  type ExpiredError = errors.ExpiredError;
  type PayloadTooLargeError = errors.PayloadTooLargeError;
  type RateLimitError = errors.RateLimitError;
  type ServiceUnavailableError = errors.ServiceUnavailableError;
  type ServerBusyError = errors.ServerBusyError;
  type InsufficientStorageError = errors.InsufficientStorageError;
  type ConverterUnavailableError = errors.ConverterUnavailableError;
  type InternalServerError = errors.InternalServerError;
  type ConnectionError = errors.ConnectionError;
  type CorsRefusalError = errors.CorsRefusalError;
  type TimeoutError = errors.TimeoutError;
  type AbortError = errors.AbortError;
  type WebhookVerificationError = errors.WebhookVerificationError;
  type TooManyJobsError = errors.TooManyJobsError;
  type JobCanceledError = errors.JobCanceledError;
  type LoginRefusedError = errors.LoginRefusedError;
}

/** Refuses an expired download (ExpiredError) before anything is sent. */
function downloadSpec<T>(download: Download, read: (response: Response) => Promise<T>): RequestSpec<T> {
  assertFresh(download);
  return { method: 'GET', url: download.url, authenticated: false, read };
}

// openapi.yaml `Download.expires_at` exists so clients can tell an expired URL without calling.
function assertFresh(download: Download): void {
  const expiresAt = Date.parse(download.expires_at);
  if (Number.isFinite(expiresAt) && expiresAt <= Date.now()) {
    throw new ExpiredError(
      `The download URL expired at ${download.expires_at}; run the operation again for a new one`,
    );
  }
}

function bodyOf(response: Response): ReadableStream<Uint8Array> {
  return response.body ?? new ReadableStream({ start: (controller) => controller.close() });
}
