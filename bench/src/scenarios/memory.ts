// Peak server RSS while merging 20 distinct 20 MB PDFs (uploads stream to disk,
// engines use subprocesses or workers), and peak RSS of the SDK uploading a 500 MB file from a path.
// Also RSS over a soak of OCR requests in many language sets, which must stay flat.
import { execFile } from 'node:child_process';
import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startServer } from '@pdn/e2e/harness';
import { createRandom } from '@pdn/fixtures';
import { fromPath, Pdn } from '@pdn/sdk';
import { PDFDocument, PDFName } from 'pdf-lib';
import { ADMIT_ALL } from '../admit-all.js';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { processTree, rss } from '../process-memory.js';
import { formatBytes, type Row } from '../report.js';

const run = promisify(execFile);
const MiB = 2 ** 20;

/** A one-page PDF carrying an uncompressed image of seeded noise: `megabytes` big, distinct per seed. */
async function bulkyPdf(megabytes: number, seed: number): Promise<Uint8Array> {
  const side = Math.floor(Math.sqrt((megabytes * MiB) / 3));
  const pixels = new Uint8Array(side * side * 3);
  const random = createRandom(seed);
  for (let i = 0; i < pixels.length; i += 4) {
    const value = Math.floor(random.next() * 2 ** 32);
    pixels[i] = value & 0xff;
    pixels[i + 1] = (value >>> 8) & 0xff;
    pixels[i + 2] = (value >>> 16) & 0xff;
    pixels[i + 3] = value >>> 24;
  }
  const document = await PDFDocument.create();
  const page = document.addPage([side / 4, side / 4]);
  const image = document.context.stream(pixels, {
    Type: 'XObject',
    Subtype: 'Image',
    Width: side,
    Height: side,
    ColorSpace: 'DeviceRGB',
    BitsPerComponent: 8,
  });
  const imageRef = document.context.register(image);
  page.node.setXObject(PDFName.of('Im0'), imageRef);
  const content = document.context.stream(`q ${side / 4} 0 0 ${side / 4} 0 0 cm /Im0 Do Q`);
  page.node.set(PDFName.of('Contents'), document.context.register(content));
  return document.save({ useObjectStreams: false });
}

/** Peak resident set size of a process, from the kernel's high-water mark (Linux). */
async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  if (!match) throw new Error(`no VmHWM for process ${pid}`);
  return Number(match[1]) * 1024;
}

/** Two language sets out of the bundled ones per request, in a shuffled order, some with a repeat. */
const SOAK_LANGUAGES = ['eng', 'deu', 'fra', 'spa', 'ita', 'por', 'nld', 'pol', 'tur', 'ces', 'swe', 'dan'];

function soakLanguage(i: number): string {
  const first = SOAK_LANGUAGES[i % SOAK_LANGUAGES.length] ?? 'eng';
  const second = SOAK_LANGUAGES[(i * 5 + 3) % SOAK_LANGUAGES.length] ?? 'deu';
  const codes = i % 3 === 0 ? [second, first, second] : i % 2 === 0 ? [first, second] : [second, first];
  return codes.join('+');
}

/**
 * OCR requests naming many language sets, in different orders, two at a time.
 * The RSS of the server and of everything it started is sampled throughout; the second half's peak
 * must stay within 1.1x the first half's (before the fix: 587 MB to 4.24 GB in four rounds).
 */
async function ocrSoak(context: BenchContext): Promise<Row[]> {
  const requests = context.profile.memory.ocrSoakRequests;
  const image = context.corpus.ocr.find((sample) => sample.language === 'eng') ?? context.corpus.ocr[0];
  if (image === undefined) throw new Error('the corpus has no OCR sample');
  // tesseract.js, so every language set needs an OCR process of its own (native tesseract would serve
  // the sets it has from one decoding process).
  const server = await startServer({ env: { ...ADMIT_ALL, PDN_OCR_ENGINE: 'tesseract.js' } });
  try {
    const pdn = new Pdn({
      baseUrl: server.baseUrl,
      apiKey: await server.createKey({ user: 'bench', plan: 'enterprise' }),
      maxRetries: 0,
    });
    const samples: { at: number; server: number; tree: number; processes: number }[] = [];
    let done = false;
    const sampling = (async () => {
      while (!done) {
        const tree = await processTree(server.pid);
        const sizes = await Promise.all(tree.map((pid) => rss(pid)));
        samples.push({
          at: samples.length,
          server: sizes[0] ?? 0,
          tree: sizes.reduce((a, b) => a + b, 0),
          processes: tree.length,
        });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    let next = 0;
    const sets = new Set<string>();
    await Promise.all(
      Array.from({ length: 2 }, async () => {
        while (next < requests) {
          const language = soakLanguage(next++);
          sets.add([...new Set(language.split('+'))].sort().join('+'));
          await pdn.ocr({ image: fromPath(image.path), language });
        }
      }),
    );
    done = true;
    await sampling;
    const half = Math.floor(samples.length / 2);
    const peak = (from: number, to: number, key: 'server' | 'tree') =>
      Math.max(...samples.slice(from, to).map((sample) => sample[key]));
    const rows: Row[] = [];
    for (const [key, what] of [
      ['tree', 'server and its OCR processes'],
      ['server', 'server process alone'],
    ] as const) {
      const first = peak(0, half, key);
      const second = peak(half, samples.length, key);
      rows.push({
        scenario: '7. Memory',
        case: `RSS over an OCR soak, ${what}: second-half peak / first-half peak`,
        pdn: formatBytes(second),
        baseline: formatBytes(first),
        ratio: second / first,
        target: '<= 1.10',
        met: second / first <= 1.1,
        note:
          `${requests} requests (2 at a time) in ${sets.size} language sets on tesseract.js; ` +
          `at most ${Math.max(...samples.map((sample) => sample.processes)) - 1} OCR processes at once`,
      });
    }
    return rows;
  } finally {
    await server.stop();
  }
}

async function serverPeakWhileMerging(context: BenchContext): Promise<Row> {
  const { mergeFiles, megabytesEach } = context.profile.memory;
  const inputs: string[] = [];
  for (let i = 0; i < mergeFiles; i++) {
    const path = join(context.workDir, `bulky-${i}.pdf`);
    await writeFile(path, await bulkyPdf(megabytesEach, 500 + i));
    inputs.push(path);
  }
  // A fresh server, so its high-water mark belongs to this merge alone.
  const server = await startServer({ env: ADMIT_ALL });
  try {
    const pdn = new Pdn({
      baseUrl: server.baseUrl,
      apiKey: await server.createKey({ user: 'bench', plan: 'enterprise' }),
      maxRetries: 0,
    });
    const result = await pdn.merge({ files: inputs.map((path) => fromPath(path)) });
    await pdn.download(result.download, join(context.workDir, 'bulky-merged.pdf'));
    const peak = await peakRss(server.pid);
    return {
      scenario: '7. Memory',
      case: `peak server RSS merging ${mergeFiles} distinct ${megabytesEach} MB PDFs`,
      pdn: formatBytes(peak),
      baseline: `inputs ${formatBytes(mergeFiles * megabytesEach * MiB)} in total`,
      ratio: null,
      target: '< 300 MB',
      met: peak < 300 * MiB,
      note: 'the server process only; qpdf runs as its own process',
    };
  } finally {
    await server.stop();
  }
}

async function sdkPeakUploading(context: BenchContext): Promise<Row> {
  const megabytes = context.profile.memory.sdkUploadMegabytes;
  const path = join(context.workDir, 'large-upload.bin');
  await writeFile(path, '');
  await truncate(path, megabytes * MiB);
  const probe = fileURLToPath(new URL('../sdk-upload-probe.js', import.meta.url));
  const { stdout } = await run(process.execPath, [probe, context.server.baseUrl, context.apiKey, path], {
    maxBuffer: MiB,
  });
  const { maxRssBytes, outcome } = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
    maxRssBytes: number;
    outcome: string;
  };
  return {
    scenario: '7. Memory',
    case: `peak SDK process RSS uploading a ${megabytes} MB file from a path`,
    pdn: formatBytes(maxRssBytes),
    baseline: '',
    ratio: null,
    target: '< 100 MB',
    met: maxRssBytes < 100 * MiB,
    note: `the whole Node process; upload ${outcome}`,
  };
}

async function memory(context: BenchContext): Promise<ScenarioResult> {
  return { rows: [await serverPeakWhileMerging(context), await sdkPeakUploading(context)] };
}

export const memoryScenario: Scenario = { name: 'memory', run: memory };

/** Its own scenario, so `npm run bench -- --only ocr-soak` runs it alone. */
export const ocrSoakScenario: Scenario = {
  name: 'memory-ocr-soak',
  run: async (context) => ({ rows: await ocrSoak(context) }),
};
