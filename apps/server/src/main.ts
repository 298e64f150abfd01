// Wires the server together and listens: the only place that binds a port (STYLE.md). Reads nothing
// from the environment itself; bin.ts hands it a validated Config.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Accounts } from './accounts/index.js';
import { Cleanups, openBackends } from './backends/index.js';
import type { Config } from './config.js';
import { createCompressEngine } from './engines/compress/index.js';
import { CpuSlots } from './engines/cpu-slots.js';
import { createOcrEngine } from './engines/ocr/index.js';
import { createOcrPdfEngine } from './engines/ocr-pdf/index.js';
import { createPdfEngine } from './engines/pdf/index.js';
import { detectTools } from './engines/tools.js';
import type { Engines } from './engines/types.js';
import { createApp } from './http/app.js';
import { Drain } from './http/drain.js';
import { createHttpServer } from './http/http-server.js';
import { JobFiles } from './jobs/job-files.js';
import { JobRunner } from './jobs/runner.js';
import type { Logger } from './logger.js';
import { createOperations } from './operations/index.js';
import { partsOf } from './role.js';
import { openStorage } from './storage/index.js';
import { WebhookDeliverer } from './webhooks/deliverer.js';

/** A process of `--role worker` (issue #16): runs jobs, binds no port. */
export interface RunningWorker {
  /** Stops claiming jobs and interrupts the running ones (back to the queue), then closes everything. */
  close(): Promise<void>;
}

export interface RunningServer {
  /** `http://127.0.0.1:3000`: the address actually bound (the real port when PORT=0). */
  url: string;
  /**
   * Stops accepting connections, lets requests in flight finish within `config.shutdownGraceMs`,
   * answers the rest 503, then closes engines and the database (issue #11, item 9).
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

async function buildEngines(config: Config, log: Logger): Promise<Engines> {
  const tools = await detectTools();
  log.info('tools detected', {
    qpdf: tools.qpdf?.version ?? 'absent',
    ghostscript: tools.ghostscript?.version ?? 'absent',
    tesseract: tools.tesseract?.version ?? 'absent',
    // poppler draws, reads and counts the compress content check's pages where installed (issue #9).
    pdftoppm: tools.pdftoppm?.version ?? 'absent',
    pdftotext: tools.pdftotext?.version ?? 'absent',
    pdfimages: tools.pdfimages?.version ?? 'absent',
    pdfinfo: tools.pdfinfo?.version ?? 'absent',
    ocrmypdf: tools.ocrmypdf?.version ?? 'absent',
  });
  const cpuSlots = new CpuSlots(config.jobConcurrency);
  const common = { tools, cpuSlots, maxPages: config.maxPages, timeoutMs: config.toolTimeoutMs, log };
  const pdf = createPdfEngine({ ...common, choice: config.pdfEngine });
  const compress = createCompressEngine({ ...common, choice: config.compressEngine });
  const ocr = await createOcrEngine({
    choice: config.ocrEngine,
    tools,
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
    concurrency: config.jobConcurrency,
    tessdataDir: config.tessdataDir,
    maxImagePixels: config.maxImagePixels,
    memoryBytes: config.ocrMemoryBytes,
  });
  const describe = (info: { name: string; version: string }) => `${info.name} ${info.version}`;
  log.info('engines chosen', {
    pdf: describe(pdf.info),
    compress: describe(compress.info),
    ocr: describe(ocr.info),
    ocr_pdf: describe(ocrPdf.info),
  });
  return { pdf, compress, ocr, ocrPdf };
}

/** On the very first start (no users at all) create `dev` on Premium with one test key (issue #2). */
async function firstStartBanner(
  accounts: Accounts,
  url: string,
  accountsHome: string,
): Promise<string | undefined> {
  if ((await accounts.users.count()) > 0) return undefined;
  const { user } = await accounts.users.ensure('dev', 'premium');
  const { key } = await accounts.keys.create(user.id, 'test', 'first start');
  return [
    '',
    'First start: created user "dev" (premium plan) with this test API key:',
    '',
    `  ${key}`,
    '',
    'Try it (merges two PDFs; the answer holds a download URL valid for 15 minutes):',
    '',
    `  curl -H "Authorization: Bearer ${key}" -F "files[]=@examples/a.pdf" -F "files[]=@examples/b.pdf" ${url}/api/v1/merge`,
    '',
    `Users and keys live in ${accountsHome}. More keys, from the repository's root`,
    '(README.md says how to run pdn-server from anywhere):',
    '',
    '  npx pdn-server keys create --user NAME [--plan free|premium|business|enterprise] [--test]',
    '',
    `People can also sign up in a browser and make their own keys: ${url}/account`,
    '',
  ].join('\n');
}

/**
 * On every later start: the first start's key is not shown again (it is stored hashed), so say how
 * to get one (issue #20: a new user restarting `npm start` had no way back to a key).
 */
function laterStartHint(url: string): string {
  return [
    '',
    "API keys are shown only when made. A new one, from the repository's root:",
    '',
    '  npx pdn-server keys create --user dev --test',
    '',
    `or make one in the account area: ${url}/account`,
    `API docs: ${url}/docs`,
    '',
  ].join('\n');
}

function urlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/**
 * The composition (STYLE.md 19): backends, storage, engines and the job runner, each part started
 * only where the role plays it (role.ts), each cleanup registered as it opens.
 */
async function openParts(config: Config, log: Logger, cleanups: Cleanups) {
  const parts = partsOf(config.role);
  const { accounts, sharedOutputs } = await openBackends(config, log, cleanups);
  const storage = await openStorage({
    dataDir: config.dataDir,
    signingSecret: config.signingSecret,
    log,
    ...(sharedOutputs === undefined ? {} : { shared: sharedOutputs }),
    role: { sweeps: parts.sweeper, sharesDataDir: config.role !== 'all' },
  });
  cleanups.add('output sweeper', () => storage.close());
  const engines = await buildEngines(config, log);
  cleanups.add('OCR engine', () => engines.ocr.close());
  // Webhooks (issue #14) show the job as the runner does, and the runner tells them of each end.
  const webhooks: WebhookDeliverer = new WebhookDeliverer({
    deliveries: accounts.deliveries,
    secrets: accounts.webhookSecrets,
    jobs: accounts.jobs,
    view: (record) => jobs.view(record),
    log,
    allowPrivate: config.webhookAllowPrivate,
  });
  // The runner starts as many jobs at once as the engines have CPU slots, so the fair order it
  // picks is the order work really starts in (issue #13).
  const jobs: JobRunner = new JobRunner({
    store: accounts.jobs,
    operations: createOperations(engines),
    files: await JobFiles.open(config.dataDir),
    downloads: storage.downloads,
    slots: config.jobConcurrency,
    log,
    callbacks: webhooks,
    parts,
  });
  await jobs.start();
  // A worker's running jobs get the grace period to finish (issue #16); elsewhere the HTTP drain gave it.
  cleanups.add('job runner', () => jobs.close(parts.http ? 0 : config.shutdownGraceMs));
  await webhooks.start();
  cleanups.add('webhook deliverer', () => webhooks.close());
  log.info('role', { role: config.role, ...parts });
  return { accounts, storage, engines, jobs };
}

/** `--role worker`: runs the jobs of its data folder's API processes; no HTTP. */
export async function startWorker(
  config: Config,
  log: Logger,
  print: (text: string) => void = (text) => process.stdout.write(`${text}\n`),
): Promise<RunningWorker> {
  const cleanups = new Cleanups(log);
  try {
    await openParts(config, log, cleanups);
  } catch (error) {
    await cleanups.run();
    throw error;
  }
  // Scripts wait for this line as they wait for "listening" on the other roles.
  print(`pdn worker running on ${config.dataDir}`);
  return { close: () => cleanups.run() };
}

export async function startServer(
  config: Config,
  log: Logger,
  print: (text: string) => void = (text) => process.stdout.write(`${text}\n`),
): Promise<RunningServer> {
  const cleanups = new Cleanups(log);
  try {
    const { accounts, storage, engines, jobs } = await openParts(config, log, cleanups);

    const drain = new Drain();
    const server = createHttpServer(createApp({ config, accounts, storage, engines, jobs, log, drain }), log);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const url = urlOf(server);
    const accountsHome =
      config.backends.kind === 'shared'
        ? 'PostgreSQL (PDN_DATABASE_URL)'
        : `the data folder ${config.dataDir}`;
    print((await firstStartBanner(accounts, url, accountsHome)) ?? laterStartHint(url));
    // Tests and scripts wait for exactly this line (with the real port when PORT=0).
    print(`pdn server listening on ${url}`);

    return {
      url,
      close: async () => {
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
export async function serveUntilSignalled(config: Config, log: Logger): Promise<void> {
  const running = config.role === 'worker' ? await startWorker(config, log) : await startServer(config, log);
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      // On stdout beside the "listening" line, whatever the log level: whoever watches the process
      // (a supervisor, a test harness) learns why it went away.
      process.stdout.write(`pdn server stopping on ${signal}\n`);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      running.close().then(
        () => {
          log.info('stopped');
          resolve();
        },
        (error: unknown) => {
          log.error('shutdown failed', { error });
          resolve();
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
