// Scenario 6 of issue #6: peak server RSS while merging 20 distinct 20 MB PDFs (uploads stream to disk,
// engines use subprocesses or workers), and peak RSS of the SDK uploading a 500 MB file from a path.
import { execFile } from 'node:child_process';
import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startServer } from '@pdn/e2e/harness';
import { createRandom } from '@pdn/fixtures';
import { fromPath, Pdn } from '@pdn/sdk';
import { PDFDocument, PDFName } from 'pdf-lib';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
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

async function serverPeakWhileMerging(context: BenchContext): Promise<Row> {
  const { mergeFiles, megabytesEach } = context.profile.memory;
  const inputs: string[] = [];
  for (let i = 0; i < mergeFiles; i++) {
    const path = join(context.workDir, `bulky-${i}.pdf`);
    await writeFile(path, await bulkyPdf(megabytesEach, 500 + i));
    inputs.push(path);
  }
  // A fresh server, so its high-water mark belongs to this merge alone.
  const server = await startServer();
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
      scenario: '6. Memory',
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
    scenario: '6. Memory',
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
