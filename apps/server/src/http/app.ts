// createApp(deps) -> Koa: the HTTP face of the server, with no port of its own (main.ts listens;
// tests may drive app.callback()). Order matters: the request id wraps everything so even a 500 has
// one; an answer given before the body has all arrived closes the connection after a bounded drain;
// CORS answers preflights and marks every /api answer, errors included, before anything can fail;
// the error envelope wraps every route, and the shutdown drain every request; on /api/v1, auth runs before the rate limit, and the
// rate limit before the body is read (issue #2). Every role serves the operational routes (/healthz,
// /readyz, /metrics); the API, the account pages and the docs only a role that takes submissions
// (role.ts), so a worker's port answers its scraper and its balancer's checks, and 404 to the rest.
import { Router } from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { partsOf } from '../role.js';
import { DOWNLOAD_PATH } from '../storage/index.js';
import { accountArea } from './account/area.js';
import { clientGone } from './client-gone.js';
import type { AppDeps } from './deps.js';
import { auth } from './middleware/auth.js';
import { backPressure } from './middleware/back-pressure.js';
import { callbackUrl, withCallbackField } from './middleware/callback-url.js';
import { cors } from './middleware/cors.js';
import { errorEnvelope } from './middleware/error-envelope.js';
import { httpRules } from './middleware/http-rules.js';
import { idempotency } from './middleware/idempotency.js';
import { jobCap } from './middleware/job-cap.js';
import { metrics } from './middleware/metrics.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestId } from './middleware/request-id.js';
import { unmatched } from './middleware/unmatched.js';
import { closeAfterUnreadBody } from './middleware/unread-body.js';
import { type PartsSpec, uploads } from './middleware/uploads.js';
import { accountRoute } from './routes/account.js';
import { compressParts, compressRoute } from './routes/compress.js';
import { DOCS_ASSETS, type DocsAsset, docsAssetRoute, docsPageRoute } from './routes/docs.js';
import { downloadRoute } from './routes/download.js';
import { healthRoute } from './routes/health.js';
import { cancelJobRoute, getJobRoute, listJobsRoute } from './routes/jobs.js';
import { languagesRoute } from './routes/languages.js';
import { mergeParts, mergeRoute } from './routes/merge.js';
import { metricsRoute } from './routes/metrics.js';
import { ocrParts, ocrRoute } from './routes/ocr.js';
import { ocrPdfParts, ocrPdfRoute } from './routes/ocr-pdf.js';
import { openapiRoute } from './routes/openapi.js';
import { readyRoute } from './routes/ready.js';
import { splitParts, splitRoute } from './routes/split.js';
import type { AppContext, AppState } from './state.js';

export type { AppDeps } from './deps.js';

/** What a worker's port answers beyond its three routes. */
const workerNotFound = (ctx: AppContext) =>
  `There is no ${ctx.method} ${ctx.path} on a worker: it serves /healthz, /readyz and /metrics; send API calls to an API process.`;

export function createApp(deps: AppDeps): Koa<AppState> {
  const { config, accounts, log, drain } = deps;
  const app = new Koa<AppState>();
  // PDN_TRUST_PROXY (issue #12): only then do X-Forwarded-For and -Proto say who the client is and
  // whether it came over https; Koa takes the address that many hops from the right.
  app.proxy = config.account.trustProxy > 0;
  app.maxIpsCount = config.account.trustProxy;
  // Paths match exactly (issue #11: `/API/V1/LANGUAGES` and `/healthz/` answered 200): case-sensitive,
  // and a trailing slash is another path, which the contract does not list (404).
  const router = new Router<AppState>({ sensitive: true, strict: true });
  const { api } = partsOf(config.role);
  if (api) apiRoutes(router, deps);
  router.get('/healthz', healthRoute(deps.engines, deps.storage, config.role));
  router.get(
    '/readyz',
    readyRoute({
      accounts,
      storage: deps.storage,
      dataDir: config.dataDir,
      role: config.role,
      tools: deps.tools,
      drain,
    }),
  );
  router.get(
    '/metrics',
    metricsRoute({ dataDir: config.dataDir, token: config.metricsToken, jobs: accounts.jobs }),
  );

  app.use(requestId(log));
  if (config.httpMetrics) app.use(metrics());
  app.use(closeAfterUnreadBody());
  app.use(cors(config.corsOrigins));
  app.use(errorEnvelope());
  app.use(drain.middleware());
  app.use(httpRules());
  if (api) app.use(accountArea({ accounts, config }));
  app.use(router.routes());
  app.use(api ? unmatched() : unmatched(workerNotFound));
  // Errors Koa sees itself (the connection failing under a response, a download stream breaking
  // after its headers went out) are logged here instead of by Koa's console handler. A client that
  // hung up is routine, not a server fault.
  app.on('error', (error: unknown, ctx?: AppContext) => {
    const fields = { request_id: ctx?.state.requestId, reason: (error as Error).message };
    if (ctx && clientGone(ctx)) log.info('connection closed by the client', fields);
    else log.warn('response failed after it started', { ...fields, error });
  });
  return app;
}

/** The API (/api/v1, downloads) and its documents, on a role that takes submissions. */
function apiRoutes(router: Router<AppState>, deps: AppDeps): void {
  const { config, accounts, storage, engines, jobs } = deps;
  // Which operations spend the hourly quota is decided here, once (openapi.yaml, "Rate limits"):
  // calls that do document work are `counted` (a job once, when submitted, after the cap on unfinished
  // jobs); calls that only read facts are `uncounted`, so a Free user can list languages and poll
  // jobs without spending a request (issues #13, #19).
  // An Idempotency-Key (issue #14) decides whether a submission is counted at all: a repeated one is
  // answered from the first without being counted or capped, so the idempotency middleware runs the
  // counting and the upload itself, and only for a request it lets through as new.
  const uncounted: Middleware<AppState>[] = [auth(accounts)];
  // One admission order (openapi.yaml, "Admission order and back-pressure"; issue #18): the checks
  // after the hourly limit run first here, since only an admitted request is counted, and each lets
  // the hourly limit answer before its own refusal (rate-limit.ts refuseAfterHourlyLimit).
  const counted: Middleware<AppState>[] = [
    jobCap(accounts, config.uploadLimits),
    backPressure({
      accounts,
      uploadLimits: config.uploadLimits,
      slots: partsOf(config.role).runner ? config.jobConcurrency : 0,
      maxQueue: config.maxQueue,
    }),
    rateLimit(accounts, config.uploadLimits),
  ];
  const submission = (parts: PartsSpec): Middleware<AppState>[] => [
    auth(accounts),
    idempotency(
      { accounts, jobs, uploadLimits: config.uploadLimits, waitMs: config.idempotencyWaitMs },
      {
        counted,
        read: uploads(withCallbackField(parts), {
          workDirs: storage.workDirs,
          uploadLimits: config.uploadLimits,
          uploadPace: config.uploadPace,
        }),
      },
    ),
    callbackUrl(config.webhookAllowPrivate),
  ];

  router.post('/api/v1/compress', ...submission(compressParts), compressRoute(jobs));
  router.post('/api/v1/merge', ...submission(mergeParts), mergeRoute(jobs, config.uploadLimits));
  router.post('/api/v1/split', ...submission(splitParts), splitRoute(jobs, config.uploadLimits));
  router.post('/api/v1/ocr', ...submission(ocrParts), ocrRoute(jobs));
  router.post('/api/v1/ocr/pdf', ...submission(ocrPdfParts), ocrPdfRoute(jobs));
  router.get('/api/v1/jobs', ...uncounted, listJobsRoute(accounts, jobs));
  router.get('/api/v1/jobs/:id', ...uncounted, getJobRoute(accounts, jobs));
  router.delete('/api/v1/jobs/:id', ...uncounted, cancelJobRoute(accounts, jobs));
  router.get('/api/v1/languages', ...uncounted, languagesRoute(engines.ocr));
  // Asking what is left must not spend a request (issue #12).
  router.get('/api/v1/account', ...uncounted, accountRoute(accounts, config.uploadLimits));
  router.get(DOWNLOAD_PATH, downloadRoute(storage.downloads));
  router.get('/openapi.json', openapiRoute());
  router.get('/docs', docsPageRoute());
  for (const asset of Object.keys(DOCS_ASSETS) as DocsAsset[])
    router.get(`/docs/${asset}`, docsAssetRoute(asset));
}
