// createApp(deps) -> Koa: the HTTP face of the server, with no port of its own (main.ts listens;
// tests may drive app.callback()). Order matters: the request id wraps everything so even a 500 has
// one; an answer given before the body has all arrived closes the connection after a bounded drain;
// CORS answers preflights and marks every /api answer, errors included, before anything can fail;
// the error envelope wraps every route, and the shutdown drain every request; on /api/v1, auth runs
// first, and the operations decide admission before the body is read. Every role serves the
// operational routes (/healthz, /readyz, /metrics); the API, the account pages and the docs only a
// role that takes submissions (role.ts), so a worker's port answers its scraper and its balancer's
// checks, and 404 to the rest.
import { Router } from '@koa/router';
import Koa from 'koa';
import type { JobOperation } from '../jobs/index.js';
import { partsOf } from '../role.js';
import { DOWNLOAD_PATH } from '../storage/index.js';
import { AddressPolicy } from '../webhooks/address-policy.js';
import { accountArea } from './account/area.js';
import { clientGone } from './client-gone.js';
import type { AppDeps } from './deps.js';
import { auth } from './middleware/auth.js';
import { cors } from './middleware/cors.js';
import { errorEnvelope } from './middleware/error-envelope.js';
import { forwardedForWarning } from './middleware/forwarded-for-warning.js';
import { httpRules } from './middleware/http-rules.js';
import { metrics } from './middleware/metrics.js';
import { optionsAnswer } from './middleware/options.js';
import { requestId } from './middleware/request-id.js';
import { unmatched } from './middleware/unmatched.js';
import { closeAfterUnreadBody } from './middleware/unread-body.js';
import { windowHeaders } from './rate-limit-headers.js';
import { accountRoute, revokeCurrentKeyRoute } from './routes/account.js';
import { compressRoute } from './routes/compress.js';
import { DOCS_ASSETS, type DocsAsset, docsAssetRoute, docsPageRoute } from './routes/docs.js';
import { downloadRoute } from './routes/download.js';
import { healthRoute } from './routes/health.js';
import { htmlToPdfRoute } from './routes/html-to-pdf.js';
import { imagesToPdfRoute } from './routes/images-to-pdf.js';
import { cancelJobRoute, getJobRoute, listJobsRoute } from './routes/jobs.js';
import { languagesRoute } from './routes/languages.js';
import { mergeRoute } from './routes/merge.js';
import { metricsRoute } from './routes/metrics.js';
import { ocrRoute } from './routes/ocr.js';
import { ocrPdfRoute } from './routes/ocr-pdf.js';
import { officeToPdfRoute } from './routes/office-to-pdf.js';
import { openapiRoute } from './routes/openapi.js';
import { pdfToImagesRoute } from './routes/pdf-to-images.js';
import { readyRoute } from './routes/ready.js';
import { splitRoute } from './routes/split.js';
import { submissionRoute } from './routes/submission.js';
import type { AppContext, AppState } from './state.js';

export type { AppDeps } from './deps.js';

/** What a worker's port answers beyond its three routes. */
const workerNotFound = (ctx: AppContext) =>
  `There is no ${ctx.method} ${ctx.path} on a worker: it serves /healthz, /readyz and /metrics; send API calls to an API process.`;

export function createApp(deps: AppDeps): Koa<AppState> {
  const { config, accounts, log, drain } = deps;
  const app = new Koa<AppState>();
  // PDN_TRUST_PROXY: only then do X-Forwarded-For and -Proto say who the client is and
  // whether it came over https; Koa takes the address that many hops from the right.
  app.proxy = config.account.trustProxy > 0;
  app.maxIpsCount = config.account.trustProxy;
  // Paths match exactly (`/API/V1/LANGUAGES` and `/healthz/` once answered 200): case-sensitive, and a
  // trailing slash is another path, which the contract does not list (404).
  const router = new Router<AppState>({ sensitive: true, strict: true });
  const { api } = partsOf(config.role);
  if (api) apiRoutes(router, deps);
  router.get('/healthz', healthRoute(deps.engines, deps.storage, config.role, deps.converters));
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
    metricsRoute({ dataDir: config.dataDir, token: config.metricsToken, jobs: deps.jobs.store }),
  );

  app.use(requestId(log));
  // Only a role that serves the account area reads the client's address (sign-in throttle, hashing).
  if (api) app.use(forwardedForWarning(config.account.trustProxy));
  if (config.httpMetrics) app.use(metrics());
  app.use(closeAfterUnreadBody());
  app.use(cors(config.corsOrigins));
  app.use(errorEnvelope(log));
  app.use(drain.middleware());
  app.use(httpRules());
  if (api) app.use(accountArea({ accounts, config, passwords: deps.passwords, webhooks: deps.webhooks }));
  app.use(router.routes());
  if (api) app.use(optionsAnswer());
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

/** Where each operation is posted (openapi.yaml paths). */
const OPERATION_PATHS: Readonly<Record<JobOperation, string>> = {
  compress: '/api/v1/compress',
  merge: '/api/v1/merge',
  split: '/api/v1/split',
  ocr: '/api/v1/ocr',
  ocr_pdf: '/api/v1/ocr/pdf',
  images_to_pdf: '/api/v1/images-to-pdf',
  pdf_to_images: '/api/v1/pdf-to-images',
  office_to_pdf: '/api/v1/office-to-pdf',
  html_to_pdf: '/api/v1/html-to-pdf',
};

/** The API (/api/v1, downloads) and its documents, on a role that takes submissions. */
function apiRoutes(router: Router<AppState>, deps: AppDeps): void {
  const { config, accounts, storage, engines, jobs } = deps;
  const { uploadLimits } = config;
  const submission = {
    admission: deps.admission,
    jobs,
    webhooks: deps.webhooks,
    uploads: { workDirs: storage.workDirs, uploadLimits, uploadPace: config.uploadPace },
    uploadLimits,
    maxSyncWaitMs: config.maxSyncWaitMs,
    webhookPolicy: new AddressPolicy(config.webhookAllowCidrs),
    log: deps.log,
  };
  // Calls that do document work are counted against the hourly limit, once, when admitted
  // (admission/admission.ts); calls that only read facts are not, so a Free user can list languages
  // and poll jobs without spending a request (openapi.yaml, "Rate limits").
  const authenticated = auth(accounts);
  for (const route of [
    compressRoute(uploadLimits),
    mergeRoute(uploadLimits),
    splitRoute(uploadLimits),
    ocrRoute,
    ocrPdfRoute(uploadLimits),
    imagesToPdfRoute(uploadLimits),
    pdfToImagesRoute(uploadLimits),
    officeToPdfRoute(uploadLimits),
    htmlToPdfRoute(uploadLimits),
  ]) {
    const path = OPERATION_PATHS[route.operation];
    router.post(path, authenticated, submissionRoute(route, submission));
  }
  // Uncounted calls still show the caller's window, spending nothing.
  const uncounted = [authenticated, windowHeaders(accounts.rateLimiter, uploadLimits)];
  router.get('/api/v1/jobs', ...uncounted, listJobsRoute(jobs));
  router.get('/api/v1/jobs/:id', ...uncounted, getJobRoute(jobs));
  router.delete('/api/v1/jobs/:id', ...uncounted, cancelJobRoute(jobs));
  router.get('/api/v1/languages', ...uncounted, languagesRoute(engines.ocr));
  // Asking what is left must not spend a request.
  router.get('/api/v1/account', authenticated, accountRoute(accounts, uploadLimits));
  router.delete('/api/v1/account/key', authenticated, revokeCurrentKeyRoute(accounts));
  router.get(DOWNLOAD_PATH, downloadRoute(storage.downloads));
  router.get('/openapi.json', openapiRoute());
  router.get('/docs', docsPageRoute());
  for (const asset of Object.keys(DOCS_ASSETS) as DocsAsset[])
    router.get(`/docs/${asset}`, docsAssetRoute(asset));
}
