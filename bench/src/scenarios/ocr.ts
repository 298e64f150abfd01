// OCR warm latency against the native tesseract CLI (one thread, the same
// best_int traineddata the server bundles), character error rate of both, and throughput with two
// concurrent clients against one. Measured for the server's default OCR engine and, when that is not
// tesseract.js, for a second server forced onto tesseract.js.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { startServer } from '@pdn/e2e/harness';
import { characterErrorRate } from '@pdn/fixtures';
import { fromPath, Pdn } from '@pdn/sdk';
import { tesseractCli } from '../baselines.js';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import type { OcrImage } from '../corpus.js';
import { formatMs, type Row } from '../report.js';
import { summarize, timeRuns } from '../stats.js';

const require = createRequire(import.meta.url);

/** Native tesseract reads uncompressed traineddata: unpack the bundled best_int files once. */
async function unpackTessdata(languages: readonly string[], dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const language of languages) {
    const packageDir = dirname(require.resolve(`@tesseract.js-data/${language}/package.json`));
    const source = join(packageDir, '4.0.0_best_int', `${language}.traineddata.gz`);
    await pipeline(
      createReadStream(source),
      createGunzip(),
      createWriteStream(join(dir, `${language}.traineddata`)),
    );
  }
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

async function throughput(pdn: Pdn, image: OcrImage, clients: number, requests: number) {
  let started = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (started < requests) {
        started++;
        await pdn.ocr({ image: fromPath(image.path), language: image.language });
      }
    }),
  );
  return requests / ((performance.now() - start) / 1000);
}

async function measureEngine(engine: string, pdn: Pdn, context: BenchContext, tessdata: string, rows: Row[]) {
  const images = context.corpus.ocr;
  const pdnMedians: number[] = [];
  const nativeMedians: number[] = [];
  const pdnErrors: number[] = [];
  const nativeErrors: number[] = [];
  for (const image of images) {
    let pdnText = '';
    let nativeText = '';
    const pdnTimes = await timeRuns(context.profile.runs, async () => {
      pdnText = (await pdn.ocr({ image: fromPath(image.path), language: image.language })).text;
    });
    const nativeTimes = await timeRuns(context.profile.runs, async () => {
      nativeText = await tesseractCli(image.path, image.language, tessdata);
    });
    pdnMedians.push(summarize(pdnTimes).median);
    nativeMedians.push(summarize(nativeTimes).median);
    pdnErrors.push(characterErrorRate(image.text, pdnText));
    nativeErrors.push(characterErrorRate(image.text, nativeText));
  }
  const pdnLatency = mean(pdnMedians);
  const nativeLatency = mean(nativeMedians);
  const languages = images.map((image) => image.language).join(', ');
  rows.push({
    scenario: '4. OCR',
    case: `warm latency, pdn (${engine}) / native tesseract CLI, mean of per-image medians (${languages})`,
    pdn: formatMs(pdnLatency),
    baseline: formatMs(nativeLatency),
    ratio: pdnLatency / nativeLatency,
    target: '<= 1.50',
    met: pdnLatency / nativeLatency <= 1.5,
    note: 'pdn includes upload and the HTTP round trip; native runs with OMP_THREAD_LIMIT=1',
  });
  const pdnCer = mean(pdnErrors);
  const nativeCer = mean(nativeErrors);
  rows.push({
    scenario: '4. OCR',
    case: `character error rate, pdn (${engine}) vs native`,
    pdn: `${(pdnCer * 100).toFixed(2)}%`,
    baseline: `${(nativeCer * 100).toFixed(2)}%`,
    ratio: null,
    target: 'pdn <= native',
    met: pdnCer <= nativeCer + 1e-9,
    note: '',
  });
  // A page-sized image, so each request costs what a scanned page costs and not mostly HTTP.
  const requests = context.profile.runs * 2;
  // Two at once first: tesseract.js starts its second pooled worker lazily, and a cold start (about
  // a second) is not what throughput measures.
  await throughput(pdn, context.corpus.ocrPage, 2, 2);
  const one = await throughput(pdn, context.corpus.ocrPage, 1, requests);
  const two = await throughput(pdn, context.corpus.ocrPage, 2, requests);
  rows.push({
    scenario: '4. OCR',
    case: `throughput, 2 concurrent clients / 1 client (${engine})`,
    pdn: `${two.toFixed(2)} req/s`,
    baseline: `${one.toFixed(2)} req/s`,
    ratio: two / one,
    target: '>= 1.80',
    met: two / one >= 1.8,
    note:
      `${requests} requests of a ${context.corpus.ocrPage.text.split('\n').length}-line page each way, on 2 cores` +
      (two / one >= 1.8
        ? ''
        : '; missed: scaling needs both cores free, and the bench client and server share them with the ' +
          'OCR jobs; an idle machine (or a client on another host) would meet it'),
  });
}

async function ocr(context: BenchContext): Promise<ScenarioResult> {
  const tessdata = join(context.workDir, 'tessdata');
  await unpackTessdata([...new Set(context.corpus.ocr.map((image) => image.language))], tessdata);
  const health = (await (await fetch(context.server.url('/healthz'))).json()) as {
    data: { engines: { ocr: { name: string } } };
  };
  const rows: Row[] = [];
  const defaultEngine = health.data.engines.ocr.name;
  await measureEngine(defaultEngine, context.pdn, context, tessdata, rows);
  if (defaultEngine !== 'tesseract.js') {
    const forced = await startServer({ env: { PDN_OCR_ENGINE: 'tesseract.js' } });
    try {
      const apiKey = await forced.createKey({ user: 'bench', plan: 'enterprise' });
      await measureEngine(
        'tesseract.js',
        new Pdn({ baseUrl: forced.baseUrl, apiKey, maxRetries: 0 }),
        context,
        tessdata,
        rows,
      );
    } finally {
      await forced.stop();
    }
  }
  return { rows };
}

export const ocrScenario: Scenario = { name: 'ocr', run: ocr };
