// The server's configuration: environment variables read once, validated, and handed to everything
// else as plain typed values (engines and routes never read process.env). A bad value stops the
// server at start-up with a message naming the variable, rather than surfacing later as a 500.
import { availableParallelism, homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { type BackendConfig, backendConfig } from './backends/backend-config.js';
import { ConfigError } from './config-error.js';
import { type Env, integer, text } from './env-values.js';
import type { Role } from './role.js';
import { parseCidrList } from './webhooks/address-policy.js';

export { ConfigError };

export type PdfEngineChoice = 'auto' | 'qpdf' | 'pdf-lib';
export type CompressEngineChoice = 'auto' | 'ghostscript' | 'pdf-lib';
export type OcrEngineChoice = 'auto' | 'tesseract' | 'tesseract.js';
export type OcrPdfEngineChoice = 'auto' | 'ocrmypdf' | 'tesseract' | 'tesseract.js';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'quiet';
/** JSON lines for a log collector, or readable lines for a terminal. */
export type LogFormat = 'json' | 'pretty';

/** Whole-request upload caps in bytes, per plan (Free 10 MiB ... Enterprise 1 GiB). */
export interface UploadLimits {
  free: number;
  premium: number;
  business: number;
  enterprise: number;
}

/** The pace every request body must keep (openapi.yaml, "Upload limits"; http/upload-pace.ts). */
export interface UploadPace {
  /** PDN_MIN_UPLOAD_BYTES_PER_SECOND: the slowest average a body may arrive at over a window. */
  minBytesPerSecond: number;
  /** PDN_UPLOAD_WINDOW_SECONDS, in milliseconds: how long each judged stretch of the upload lasts. */
  windowMs: number;
}

/** Origins whose pages may call /api from a browser: `*` for any, none (CORS off) by default. */
export type CorsOrigins = readonly string[] | '*';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** From PDN_SIGNING_SECRET; when absent the storage module generates one into the data folder. */
  signingSecret?: string;
  logLevel: LogLevel;
  logFormat: LogFormat;
  pdfEngine: PdfEngineChoice;
  compressEngine: CompressEngineChoice;
  ocrEngine: OcrEngineChoice;
  /** OCR of documents: OCRmyPDF, else native tesseract with qpdf. */
  ocrPdfEngine: OcrPdfEngineChoice;
  tessdataDir?: string;
  maxPages: number;
  maxImagePixels: number;
  toolTimeoutMs: number;
  jobConcurrency: number;
  /**
   * PDN_MAX_SYNC_WAIT, in milliseconds: the longest a synchronous call waits for a job slot. A call
   * expected to wait longer is answered `503 server_busy` at once; one not started by then is withdrawn
   * and answered the same (openapi.yaml, "Admission order and back-pressure").
   */
  maxSyncWaitMs: number;
  /** What an operator should know of the settings read (an obsolete variable), said once at start. */
  warnings: readonly string[];
  /** How long a repeated Idempotency-Key waits for the first request's answer before 409. */
  idempotencyWaitMs: number;
  /**
   * PDN_WEBHOOK_ALLOW_CIDRS: special-purpose ranges webhooks may reach all the same (an operator's
   * private network, the tests' loopback receivers); see webhooks/address-policy.ts.
   */
  webhookAllowCidrs: readonly string[];
  /** PDN_METRICS_TOKEN: when set, GET /metrics answers only a bearer of it. */
  metricsToken?: string;
  /** PDN_HTTP_METRICS=off: requests are not counted for GET /metrics (the bench measures their cost). */
  httpMetrics: boolean;
  /** OCR processes in all, whatever their languages. */
  ocrPoolSize: number;
  ocrRecycleAfter: number;
  /** Memory of each OCR process and tesseract run (run-tool.ts limitedCommand). */
  ocrMemoryBytes: number;
  uploadLimits: UploadLimits;
  uploadPace: UploadPace;
  /** How long a stopping server lets requests in flight finish before answering them 503. */
  shutdownGraceMs: number;
  /**
   * PDN_DRAIN_DELAY_MS: how long a stopping server answers /readyz 503 while still serving, before it
   * refuses connections; unset, the role's default (http/drain.ts).
   */
  drainDelayMs?: number;
  /** PDN_CORS_ORIGINS (http/middleware/cors.ts). */
  corsOrigins: CorsOrigins;
  /** The account area. */
  account: AccountConfig;
  /** Embedded (SQLite, outputs folder) or shared (PostgreSQL, Redis, S3). */
  backends: BackendConfig;
  /** `pdn-server start --role` (role.ts): `all` unless the command line says otherwise. */
  role: Role;
}

export interface AccountConfig {
  /** PDN_SIGNUP=off: only the operator creates accounts (`pdn-server users create`). */
  signUp: boolean;
  /** PDN_SESSION_IDLE_MINUTES and PDN_SESSION_MAX_HOURS, in milliseconds. */
  sessionLimits: { idleMs: number; maxMs: number };
  /**
   * PDN_TRUST_PROXY: how many reverse proxies in front of the server append to X-Forwarded-For and set
   * X-Forwarded-Proto; 0 (the default) trusts neither header, since any client can send them.
   */
  trustProxy: number;
  /** PDN_PUBLIC_URL: the base of links the admin command prints (`https://pdn.example.com`), no trailing slash. */
  publicUrl?: string;
}

const MiB = 1024 * 1024;

/**
 * PDN_MAX_SYNC_WAIT's default, in seconds: a third of the 60 s that common proxies and load balancers
 * give a request (nginx's proxy_read_timeout, AWS ALB's idle timeout), so that a call that waited its
 * longest still has twice that for its own work. The bench (scenario sharing) measures what callers
 * get with it: an accepted call's wait stays under it at four times the server's capacity.
 */
const DEFAULT_MAX_SYNC_WAIT_SECONDS = 20;

function publicUrl(env: Env): string | undefined {
  const raw = text(env, 'PDN_PUBLIC_URL');
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PDN_PUBLIC_URL must be an absolute http(s) URL, got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(`PDN_PUBLIC_URL must be an absolute http(s) URL, got '${raw}'`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const found = allowed.find((option) => option === raw);
  if (found === undefined) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got '${raw}'`);
  }
  return found;
}

/**
 * What the deprecated PDN_WEBHOOK_ALLOW_PRIVATE=1 opened: loopback, private, shared, link-local and
 * unique-local addresses. It still means that, so existing deployments keep their receivers.
 */
export const ALLOW_PRIVATE_CIDRS = [
  '127.0.0.0/8',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  '169.254.0.0/16',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
] as const;

/** PDN_WEBHOOK_ALLOW_CIDRS, or the ranges of the old all-or-nothing switch; not both. */
function webhookAllowCidrs(env: Env): readonly string[] {
  const list = text(env, 'PDN_WEBHOOK_ALLOW_CIDRS');
  const allowPrivate = oneOf(env, 'PDN_WEBHOOK_ALLOW_PRIVATE', ['0', '1'], '0') === '1';
  if (list !== undefined && allowPrivate)
    throw new ConfigError(
      'PDN_WEBHOOK_ALLOW_PRIVATE and PDN_WEBHOOK_ALLOW_CIDRS are both set: keep PDN_WEBHOOK_ALLOW_CIDRS only',
    );
  if (allowPrivate) return ALLOW_PRIVATE_CIDRS;
  try {
    return parseCidrList(list ?? '');
  } catch (error) {
    throw new ConfigError(`PDN_WEBHOOK_ALLOW_CIDRS: ${(error as Error).message}`);
  }
}

/**
 * PDN_CORS_ORIGINS: `*`, or origins separated by commas, each exactly as a browser sends it in
 * `Origin` (scheme, host, port if not the default; no path, no trailing slash), since the
 * middleware compares them as text.
 */
function corsOrigins(env: Env): CorsOrigins {
  const raw = text(env, 'PDN_CORS_ORIGINS');
  if (raw === undefined) return [];
  if (raw === '*') return '*';
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item) => {
      const origin = URL.canParse(item) ? new URL(item).origin : 'null';
      if (origin !== item) {
        const hint = origin === 'null' ? 'such as https://app.example.com' : `written ${origin}`;
        throw new ConfigError(`PDN_CORS_ORIGINS: '${item}' is not an origin; give * or origins ${hint}`);
      }
      return origin;
    });
}

/**
 * The data folder when PDN_DATA_DIR is unset: the user's, after the XDG base directories
 * (`$XDG_DATA_HOME/pdn`, else `~/.local/share/pdn`), as the CLI keeps its config under
 * `$XDG_CONFIG_HOME/pdn`. It was `./.pdn-data` once, so `pdn-server keys …` run from
 * another folder than the server worked on another, empty database.
 */
function defaultDataDir(env: Env): string {
  const xdg = text(env, 'XDG_DATA_HOME');
  // The XDG specification: a relative path in these variables is invalid and is ignored.
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'share'), 'pdn');
}

/** Reads and validates the configuration; throws ConfigError on the first unusable value. */
export function loadConfig(env: Env = process.env): Config {
  const cpus = availableParallelism();
  const signingSecret = text(env, 'PDN_SIGNING_SECRET');
  if (signingSecret !== undefined && signingSecret.length < 32) {
    // A short secret makes every signed download URL guessable offline.
    throw new ConfigError('PDN_SIGNING_SECRET must be at least 32 characters long');
  }
  const tessdataDir = text(env, 'PDN_TESSDATA_DIR');
  const metricsToken = text(env, 'PDN_METRICS_TOKEN');
  const drainDelayMs =
    text(env, 'PDN_DRAIN_DELAY_MS') === undefined
      ? undefined
      : integer(env, 'PDN_DRAIN_DELAY_MS', 0, 0, 600_000);
  const warnings: string[] = [];
  if (text(env, 'PDN_MAX_QUEUE') !== undefined)
    warnings.push(
      'PDN_MAX_QUEUE is no longer read: synchronous calls wait their turn in the job queue for up to PDN_MAX_SYNC_WAIT seconds (README, "Sizing")',
    );
  const base = publicUrl(env);
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: text(env, 'HOST') ?? '127.0.0.1',
    dataDir: resolve(text(env, 'PDN_DATA_DIR') ?? defaultDataDir(env)),
    ...(signingSecret === undefined ? {} : { signingSecret }),
    logLevel: oneOf(env, 'PDN_LOG_LEVEL', ['debug', 'info', 'warn', 'error', 'quiet'], 'info'),
    logFormat: oneOf(env, 'PDN_LOG_FORMAT', ['json', 'pretty'], 'json'),
    pdfEngine: oneOf(env, 'PDN_PDF_ENGINE', ['auto', 'qpdf', 'pdf-lib'], 'auto'),
    compressEngine: oneOf(env, 'PDN_COMPRESS_ENGINE', ['auto', 'ghostscript', 'pdf-lib'], 'auto'),
    ocrEngine: oneOf(env, 'PDN_OCR_ENGINE', ['auto', 'tesseract', 'tesseract.js'], 'auto'),
    ocrPdfEngine: oneOf(env, 'PDN_OCR_PDF_ENGINE', ['auto', 'ocrmypdf', 'tesseract', 'tesseract.js'], 'auto'),
    ...(tessdataDir === undefined ? {} : { tessdataDir: resolve(tessdataDir) }),
    maxPages: integer(env, 'PDN_MAX_PAGES', 5000, 1),
    maxImagePixels: integer(env, 'PDN_MAX_IMAGE_PIXELS', 40_000_000, 1),
    toolTimeoutMs: integer(env, 'PDN_TOOL_TIMEOUT_MS', 120_000, 1000),
    jobConcurrency: integer(env, 'PDN_JOB_CONCURRENCY', cpus, 1, 256),
    maxSyncWaitMs: integer(env, 'PDN_MAX_SYNC_WAIT', DEFAULT_MAX_SYNC_WAIT_SECONDS, 1, 600) * 1000,
    warnings,
    idempotencyWaitMs: integer(env, 'PDN_IDEMPOTENCY_WAIT_SECONDS', 10, 0, 600) * 1000,
    webhookAllowCidrs: webhookAllowCidrs(env),
    ...(metricsToken === undefined ? {} : { metricsToken }),
    httpMetrics: oneOf(env, 'PDN_HTTP_METRICS', ['on', 'off'], 'on') === 'on',
    ocrPoolSize: integer(env, 'PDN_OCR_POOL_SIZE', cpus, 1, 64),
    ocrRecycleAfter: integer(env, 'PDN_OCR_RECYCLE_AFTER', 200, 1),
    // 1 GiB: a 40-megapixel page (the default cap) peaked at 390 MB resident in tesseract.js and
    // 535 MB in native tesseract, and read within a 700 MB data limit.
    ocrMemoryBytes: integer(env, 'PDN_OCR_MEMORY_MB', 1024, 256, 65536) * MiB,
    uploadLimits: {
      free: integer(env, 'PDN_UPLOAD_LIMIT_FREE', 10 * MiB, 1),
      premium: integer(env, 'PDN_UPLOAD_LIMIT_PREMIUM', 100 * MiB, 1),
      business: integer(env, 'PDN_UPLOAD_LIMIT_BUSINESS', 250 * MiB, 1),
      enterprise: integer(env, 'PDN_UPLOAD_LIMIT_ENTERPRISE', 1024 * MiB, 1),
    },
    // 20 KiB in each 20 s: any real link sends that (8 kbit/s), and a trickle or an `Expect:
    // 100-continue` never followed by its body frees its place within 20 s.
    uploadPace: {
      minBytesPerSecond: integer(env, 'PDN_MIN_UPLOAD_BYTES_PER_SECOND', 1024, 0),
      windowMs: integer(env, 'PDN_UPLOAD_WINDOW_SECONDS', 20, 1, 600) * 1000,
    },
    // Long enough for a normal compress of a large document; a supervisor's own kill timeout (e.g.
    // Kubernetes' terminationGracePeriodSeconds, 30 s by default) should be set a little above it.
    shutdownGraceMs: integer(env, 'PDN_SHUTDOWN_GRACE_MS', 30_000, 0),
    ...(drainDelayMs === undefined ? {} : { drainDelayMs }),
    corsOrigins: corsOrigins(env),
    account: {
      signUp: oneOf(env, 'PDN_SIGNUP', ['on', 'off'], 'on') === 'on',
      sessionLimits: {
        idleMs: integer(env, 'PDN_SESSION_IDLE_MINUTES', 60, 1, 60 * 24 * 30) * 60_000,
        maxMs: integer(env, 'PDN_SESSION_MAX_HOURS', 12, 1, 24 * 90) * 60 * 60_000,
      },
      trustProxy: integer(env, 'PDN_TRUST_PROXY', 0, 0, 16),
      ...(base === undefined ? {} : { publicUrl: base }),
    },
    backends: backendConfig(env, signingSecret !== undefined),
    role: 'all',
  };
}
