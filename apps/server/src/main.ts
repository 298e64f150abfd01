// Wires the server together and listens: the only place that binds a port (STYLE.md). Reads nothing
// from the environment itself; bin.ts hands it a validated Config.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { PasswordHasher, planLimits } from './accounts/index.js';
import { Admission } from './admission/admission.js';
import { QueueWait } from './admission/queue-wait.js';
import { SyncCalls } from './admission/sync-calls.js';
import { Cleanups, openBackends } from './backends/index.js';
import type { Config } from './config.js';
import { createCompressEngine } from './engines/compress/index.js';
import { convertersOf } from './engines/converters.js';
import { CpuSlots } from './engines/cpu-slots.js';
import { createHtmlPdfEngine } from './engines/html-pdf/index.js';
import { createImagesPdfEngine } from './engines/images-pdf/index.js';
import { createOcrEngine } from './engines/ocr/index.js';
import { listNativeTesseract } from './engines/ocr/native-tesseract.js';
import { createOcrPdfEngine } from './engines/ocr-pdf/index.js';
import { createOfficePdfEngine } from './engines/office-pdf/index.js';
import { createPdfEngine } from './engines/pdf/index.js';
import { createPdfImagesEngine } from './engines/pdf-images/index.js';
import { type DetectedTools, detectTools } from './engines/tools.js';
import type { Engines } from './engines/types.js';
import { createApp } from './http/app.js';
import { DEFAULT_DRAIN_DELAY_MS, Drain } from './http/drain.js';
import { createHttpServer } from './http/http-server.js';
import { IdempotencyKeys } from './idempotency/idempotency-keys.js';
import { openJobs } from './jobs/open-jobs.js';
import type { Logger } from './logger.js';
import { roleInfo } from './metrics.js';
import { createOperations } from './operations/index.js';
import { partsOf } from './role.js';
import { linkBase } from './server-address/server-address.js';
import { firstStartBanner, laterStartHint } from './start-banner.js';
import { openStorage, type Storage } from './storage/index.js';
import { AddressPolicy } from './webhooks/address-policy.js';
import { WebhookDeliverer } from './webhooks/deliverer.js';

export interface RunningServer {
  /** `http://127.0.0.1:3000`: the address actually bound (the real port when PORT=0). */
  url: string;
  /**
   * Answers /readyz 503 while still serving for the drain delay, so a balancer stops sending work
   * first, then stops accepting connections, lets requests in flight finish within
   * `config.shutdownGraceMs`, answers the rest 503, then closes engines and the database. A worker's
   * running jobs get the grace period then, and those still running go back to the queue.
   */
  close(): Promise<void>;
}

/**
 * After the cut-off, how long the 503s get to reach their clients before every connection is closed:
 * an answer to an upload still streaming lingers up to 5 s (middleware/unread-body.ts).
 */
const FLUSH_MS = 6_000;

/** Resolves true when `done` settles within `ms`, false otherwise; holds the process open for neither. */
function within(done: Promise<void>, ms: number): Promise<boolean> {
  return Promise.race([done.then(() => true), sleep(ms, false, { ref: false })]);
}

async function buildEngines(
  config: Config,
  log: Logger,
  tools: DetectedTools,
  folders: Storage['workDirs'],
): Promise<Engines> {
  log.info('tools detected', {
    qpdf: tools.qpdf?.version ?? 'absent',
    ghostscript: tools.ghostscript?.version ?? 'absent',
    tesseract: tools.tesseract?.version ?? 'absent',
    // poppler draws, reads and counts the compress content check's pages where installed.
    pdftoppm: tools.pdftoppm?.version ?? 'absent',
    pdftotext: tools.pdftotext?.version ?? 'absent',
    pdfimages: tools.pdfimages?.version ?? 'absent',
    pdfinfo: tools.pdfinfo?.version ?? 'absent',
    ocrmypdf: tools.ocrmypdf?.version ?? 'absent',
    // The converters: an operation whose tool is absent answers 501 converter_unavailable.
    libreoffice: tools.libreoffice?.version ?? 'absent',
    chromium: tools.chromium?.version ?? 'absent',
    pyuno: tools.pyuno?.version ?? 'absent',
    unshare: tools.unshare?.version ?? 'absent',
  });
  const cpuSlots = new CpuSlots(config.jobConcurrency);
  const common = { tools, cpuSlots, maxPages: config.maxPages, timeoutMs: config.toolTimeoutMs, log };
  const pdf = createPdfEngine({ ...common, choice: config.pdfEngine });
  const compress = createCompressEngine({ ...common, choice: config.compressEngine, folders });
  const native = await listNativeTesseract(tools.tesseract, config.tessdataDir, log);
  const ocr = await createOcrEngine({
    choice: config.ocrEngine,
    tools,
    native,
    cpuSlots,
    ...(config.tessdataDir === undefined ? {} : { tessdataDir: config.tessdataDir }),
    maxImagePixels: config.maxImagePixels,
    memoryBytes: config.ocrMemoryBytes,
    poolSize: config.ocrPoolSize,
    recycleAfter: config.ocrRecycleAfter,
    timeoutMs: config.toolTimeoutMs,
    log,
  });
  const ocrPdf = await createOcrPdfEngine({
    ...common,
    choice: config.ocrPdfEngine,
    native,
    tesseractJs: ocr.pages,
    concurrency: config.jobConcurrency,
    tessdataDir: config.tessdataDir,
    maxImagePixels: config.maxImagePixels,
    memoryBytes: config.ocrMemoryBytes,
  });
  const imagesPdf = createImagesPdfEngine({
    images: ocr.pages,
    cpuSlots,
    maxImagePixels: config.maxImagePixels,
    memoryBytes: config.ocrMemoryBytes,
  });
  const pdfImages = createPdfImagesEngine({
    ...common,
    maxImagePixels: config.maxImagePixels,
    memoryBytes: config.ocrMemoryBytes,
  });
  const htmlPdf = createHtmlPdfEngine({ tools, cpuSlots, folders, log });
  const officePdf = createOfficePdfEngine({
    tools,
    cpuSlots,
    folders,
    // Instances start under the largest plan's memory; each conversion gets its caller's.
    maxMemoryBytes: planLimits('enterprise', config.uploadLimits).officeMemoryBytes,
    timeoutMs: config.toolTimeoutMs,
    log,
  });
  // Each engine has said which it is, once (at warn where `auto` fell back for a missing tool).
  return { pdf, compress, ocr, ocrPdf, imagesPdf, pdfImages, htmlPdf, officePdf };
}

function urlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/**
 * The composition (STYLE.md 19): backends, storage, engines, the jobs, webhooks and admission, each
 * part started only where the role plays it (role.ts), each cleanup registered as it opens.
 */
async function openParts(config: Config, log: Logger, cleanups: Cleanups) {
  const parts = partsOf(config.role);
  for (const warning of config.warnings) log.warn(warning);
  const { stores, accounts, sharedStorage, openQueue } = await openBackends(config, log, cleanups);
  const storage = await openStorage({
    dataDir: config.dataDir,
    signingSecret: config.signingSecret,
    log,
    ...(sharedStorage === undefined ? {} : { shared: sharedStorage }),
    role: { sweeps: parts.sweeper, sharesDataDir: config.role !== 'all' },
  });
  cleanups.add('output sweeper', () => storage.close());
  const tools = await detectTools();
  const engines = await buildEngines(config, log, tools, storage.workDirs);
  cleanups.add('compress engine', () => engines.compress.close());
  cleanups.add('OCR engine', () => engines.ocr.close());
  cleanups.add('HTML engine', () => engines.htmlPdf.close());
  cleanups.add('Office engine', () => engines.officePdf.close());
  const opened = await openJobs({
    store: stores.jobs,
    inputs: storage.inputs,
    workDirs: storage.workDirs,
    downloads: storage.downloads,
    operations: createOperations(engines),
    parts,
    slots: config.jobConcurrency,
    log,
    openQueue,
  });
  // A worker's running jobs get the grace period to finish; elsewhere the HTTP drain gave it.
  cleanups.add('jobs', () => opened.close(parts.api ? 0 : config.shutdownGraceMs));
  const { jobs } = opened;
  const webhooks = new WebhookDeliverer({
    deliveries: stores.deliveries,
    secrets: accounts.webhookSecrets,
    jobs: stores.jobs,
    events: jobs.queue.events,
    view: (record) => jobs.views.view(record),
    log,
    policy: new AddressPolicy(config.webhookAllowCidrs),
  });
  await webhooks.start();
  cleanups.add('webhook deliverer', () => webhooks.close());
  const admission = new Admission({
    rateLimiter: accounts.rateLimiter,
    jobs: stores.jobs,
    keys: new IdempotencyKeys({
      store: stores.idempotency,
      jobs: stores.jobs,
      waiters: jobs.waiters,
      waitMs: config.idempotencyWaitMs,
      log,
    }),
    syncCalls: new SyncCalls(),
    queueWait: new QueueWait({ store: stores.jobs, capacity: () => jobs.queue.capacity() }),
    maxSyncWaitMs: config.maxSyncWaitMs,
    uploadLimits: config.uploadLimits,
  });
  log.info('role', { ...parts });
  roleInfo.set({ role: config.role }, 1);
  // Where jobs run, the tools they were started with must stay (/readyz).
  const toolPaths = parts.runner ? Object.values(tools).map((tool) => tool.path) : [];
  // The account pages hash passwords on threads of their own (started at the first hash).
  const passwords = new PasswordHasher();
  cleanups.add('password hashing', () => passwords.close());
  return {
    accounts,
    storage,
    engines,
    jobs,
    admission,
    webhooks,
    passwords,
    tools: toolPaths,
    converters: convertersOf(tools),
  };
}

export async function startServer(
  config: Config,
  log: Logger,
  print: (text: string) => void = (text) => process.stdout.write(`${text}\n`),
): Promise<RunningServer> {
  const cleanups = new Cleanups(log);
  try {
    const opened = await openParts(config, log, cleanups);
    const { accounts } = opened;

    const drain = new Drain();
    const server = createHttpServer(createApp({ ...opened, config, log, drain }), log);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const url = urlOf(server);
    if (partsOf(config.role).api) {
      // Recorded for the admin commands' links, which run in shells that know neither.
      const address = { listening: url, publicUrl: config.account.publicUrl ?? null, recordedAt: Date.now() };
      await accounts.serverAddress.record(address);
      const base = linkBase(address);
      print((await firstStartBanner(accounts, config, base)) ?? laterStartHint(config, base));
      // Tests and scripts wait for exactly this line (with the real port when PORT=0).
      print(`pdn server listening on ${url}`);
    } else {
      // A worker takes no API calls, so no key to show: scripts wait for this line instead.
      print(`pdn worker running on ${config.dataDir}, serving /healthz, /readyz and /metrics on ${url}`);
    }

    return {
      url,
      close: async () => {
        // Readiness false first, still serving, while balancers notice (http/drain.ts).
        drain.announce();
        const delayMs = config.drainDelayMs ?? DEFAULT_DRAIN_DELAY_MS[config.role];
        if (delayMs > 0) {
          log.info('not ready: serving on while balancers notice', { delay_ms: delayMs });
          await sleep(delayMs);
        }
        drain.begin();
        // No new connections from here on; idle kept-alive ones close now, busy ones after their answer.
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        if (!(await within(drain.idle(), config.shutdownGraceMs))) {
          log.warn('grace period over: answering the requests still running with 503', {
            grace_ms: config.shutdownGraceMs,
          });
          drain.cutOff();
          await within(drain.idle(), FLUSH_MS);
        }
        server.closeAllConnections();
        await closed;
        await cleanups.run();
      },
    };
  } catch (error) {
    await cleanups.run();
    throw error;
  }
}

/** Starts the server and stops it gracefully on SIGINT or SIGTERM; resolves once it has stopped. */
/**
 * Node prints a library's process warnings raw on stderr (the AWS SDK's, that Node 20 support is
 * ending, came with every start on the shared backends), beside the JSON log. Its own printing is the
 * one 'warning' listener it installs: replaced here by the log, once per kind of warning.
 */
function logProcessWarnings(log: Logger): void {
  const said = new Set<string>();
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    const kind = `${warning.name}: ${warning.message}`;
    if (said.has(kind)) return;
    said.add(kind);
    log.warn('process warning', { warning: warning.name, message: warning.message });
  });
}

export async function serveUntilSignalled(config: Config, processLog: Logger): Promise<void> {
  // Every line of a process names its role, as several run on one deployment's logs.
  const log = processLog.child({ role: config.role });
  logProcessWarnings(log);
  // Listening for the signals before starting: a supervisor may stop the server the moment it prints
  // its "listening" line, and a signal that came before the handlers were in place ended the process
  // at once, cutting its connections (the e2e shutdown tests, which signal right after that line, saw
  // the process killed by SIGTERM about half the time). One that comes while starting is acted on once
  // started. The handlers go with the first signal: a second one ends the process at once, a start
  // that hangs (an unreachable Redis) or a stop that takes too long.
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  const running = await startServer(config, log);
  const signal = await signalled;
  // On stdout beside the "listening" line, whatever the log level: whoever watches the process (a
  // supervisor, a test harness) learns why it went away.
  process.stdout.write(`pdn server stopping on ${signal}\n`);
  await running.close().then(
    () => log.info('stopped'),
    (error: unknown) => log.error('shutdown failed', { error }),
  );
}
