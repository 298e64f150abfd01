// createApp(deps) -> Koa: the HTTP face of the server, with no port of its own (main.ts listens;
// tests may drive app.callback()). Order matters: the request id wraps everything so even a 500 has
// one; an answer given before the body has all arrived closes the connection after a bounded drain;
// CORS answers preflights and marks every /api answer, errors included, before anything can fail;
// the error envelope wraps every route, and the shutdown drain every request; on /api/v1, auth runs before the rate limit, and the
// rate limit before the body is read (issue #2).
import { Router } from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { DOWNLOAD_PATH } from '../storage/index.js';
import { accountArea } from './account/area.js';
import { clientGone } from './client-gone.js';
import type { AppDeps } from './deps.js';
import { auth } from './middleware/auth.js';
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

export function createApp(deps: AppDeps): Koa<AppState> {
  const { config, accounts, storage, engines, jobs, log, drain } = deps;
  const app = new Koa<AppState>();
  // PDN_TRUST_PROXY (issue #12): only then do X-Forwarded-For and -Proto say who the client is and
  // whether it came over https; Koa takes the address that many hops from the right.
  app.proxy = config.account.trustProxy > 0;
  app.maxIpsCount = config.account.trustProxy;
  // Paths match exactly (issue #11: `/API/V1/LANGUAGES` and `/healthz/` answered 200): case-sensitive,
  // and a trailing slash is another path, which the contract does not list (404).
  const router = new Router<AppState>({ sensitive: true, strict: true });

  // Which operations spend the hourly quota is decided here, once (openapi.yaml, "Rate limits"):
  // calls that do document work are `counted` (a job once, when submitted, after the cap on unfinished
  // jobs); calls that only read facts are `uncounted`, so a Free user can list languages and poll
  // jobs without spending a request (issues #13, #19).
  // An Idempotency-Key (issue #14) decides whether a submission is counted at all: a repeated one is
  // answered from the first without being counted or capped, so the idempotency middleware runs the
  // counting and the upload itself, and only for a request it lets through as new.
  const uncounted: Middleware<AppState>[] = [auth(accounts)];
  const counted: Middleware<AppState>[] = [
    jobCap(accounts, config.uploadLimits),
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
  router.get('/healthz', healthRoute(engines, storage, config.role));
  router.get('/readyz', readyRoute(accounts, storage, config.dataDir));
  router.get('/metrics', metricsRoute(config.dataDir, config.metricsToken));
  router.get('/openapi.json', openapiRoute());
  router.get('/docs', docsPageRoute());
  for (const asset of Object.keys(DOCS_ASSETS) as DocsAsset[])
    router.get(`/docs/${asset}`, docsAssetRoute(asset));

  app.use(requestId(log));
  app.use(metrics());
  app.use(closeAfterUnreadBody());
  app.use(cors(config.corsOrigins));
  app.use(errorEnvelope());
  app.use(drain.middleware());
  app.use(httpRules());
  app.use(accountArea({ accounts, config }));
  app.use(router.routes());
  app.use(unmatched());
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
