// The OCR engine (issue #3, OCR): checks the language and the image, then runs tesseract.js worker
// pools, or the native tesseract binary when it is installed and has every requested language.
//
// choice `auto`: native for jobs whose languages all exist in its data folder (about 2x faster on a
// page, see native-tesseract.ts), tesseract.js for the rest; `tesseract.js`: never native;
// `tesseract`: native only, so the accepted languages are the binary's (start-up error without it).
import { readFile } from 'node:fs/promises';
import { ApiError, InternalError, InvalidInputError } from '../../errors.js';
import type { JobQueue } from '../job-queue.js';
import { ToolTimeoutError } from '../run-tool.js';
import type { DetectedTools } from '../tools.js';
import type { EngineInfo, EngineLog, InputFile, JobContext, OcrEngine, OcrOutput } from '../types.js';
import { checkPixelCap, type ImageHeader, readImageHeader } from './image-header.js';
import { type LanguageData, LanguageRegistry, loadLanguageRegistry } from './language-registry.js';
import { NativeTesseract } from './native-tesseract.js';
import { messageOf, type RecognizedText, UnreadableImageError } from './recognizer.js';
import { TesseractJsPools } from './tesseract-js-pools.js';
import { TESSERACT_JS_VERSION } from './tesseract-js-worker.js';
import { type PoolWorker, WorkerPool } from './worker-pool.js';

export interface OcrEngineOptions {
  choice: 'auto' | 'tesseract' | 'tesseract.js';
  tools: DetectedTools;
  /** The server's bound on heavy jobs (issue #2): OCR shares it with the PDF engines. */
  queue: JobQueue;
  /** PDN_TESSDATA_DIR: extra plain `.traineddata` files (source `system`). */
  tessdataDir?: string;
  maxImagePixels: number;
  /** Workers per language pool, and native runs at once. */
  poolSize: number;
  /** Jobs after which a tesseract.js worker is replaced. */
  recycleAfter: number;
  timeoutMs: number;
  log: EngineLog;
}

/** Native runs need no warm state; the pool only bounds how many run at once and queues the rest. */
const NATIVE_SLOT: PoolWorker = { terminate: async () => {} };

/** Turns what a recognizer threw into the server's error family (src/errors.ts). */
function toApiError(error: unknown, image: InputFile, header: ImageHeader, signal: AbortSignal): unknown {
  if (error instanceof ApiError) return error;
  // The client left: whoever aborted knows why; nobody reads this answer.
  if (signal.aborted && error === signal.reason) return error;
  if (error instanceof UnreadableImageError) {
    return new InvalidInputError(
      `${image.label} could not be read as a ${header.format.toUpperCase()} image: its data is damaged or incomplete`,
      { cause: error },
    );
  }
  if (error instanceof ToolTimeoutError) {
    return new InternalError(`OCR of ${image.label} did not finish within ${error.timeoutMs} ms`, {
      cause: error,
    });
  }
  return new InternalError(`OCR of ${image.label} failed: ${messageOf(error)}`, { cause: error });
}

/** The native accelerator when chosen or available; under `auto` a binary that fails to answer is skipped. */
async function startNative(o: OcrEngineOptions): Promise<NativeTesseract | undefined> {
  if (o.choice === 'tesseract.js' || o.tools.tesseract === undefined) return undefined;
  try {
    return await NativeTesseract.start(o.tools.tesseract, o.tessdataDir, o.log);
  } catch (error) {
    if (o.choice === 'tesseract') throw error;
    o.log.warn('native tesseract unusable, OCR runs on tesseract.js only', { error: messageOf(error) });
    return undefined;
  }
}

export async function createOcrEngine(o: OcrEngineOptions): Promise<OcrEngine> {
  if (o.choice === 'tesseract' && o.tools.tesseract === undefined) {
    throw new Error('PDN_OCR_ENGINE=tesseract, but no tesseract binary was found on PATH');
  }
  const native = await startNative(o);
  const registry =
    o.choice === 'tesseract' && native !== undefined
      ? new LanguageRegistry(native.languages)
      : await loadLanguageRegistry(
          o.tessdataDir === undefined ? { log: o.log } : { tessdataDir: o.tessdataDir, log: o.log },
        );
  const jsPools = new TesseractJsPools({
    poolSize: o.poolSize,
    recycleAfter: o.recycleAfter,
    timeoutMs: o.timeoutMs,
    log: o.log,
  });
  const nativePool = new WorkerPool({
    name: 'tesseract',
    size: o.poolSize,
    recycleAfter: Number.POSITIVE_INFINITY,
    timeoutMs: o.timeoutMs,
    create: async () => NATIVE_SLOT,
    // Each run is its own process: a failed one leaves nothing behind to retire.
    keepsWorker: () => true,
    log: o.log,
  });

  const info: EngineInfo =
    native === undefined
      ? { name: 'tesseract.js', version: TESSERACT_JS_VERSION }
      : o.choice === 'tesseract'
        ? { name: 'tesseract', version: native.tool.version }
        : {
            name: 'tesseract',
            version: `${native.tool.version} (tesseract.js ${TESSERACT_JS_VERSION} for the languages it lacks)`,
          };
  o.log.info('OCR engine ready', {
    engine: info.name,
    version: info.version,
    languages: registry.list().length,
    native: native?.languages.map((language) => language.code) ?? [],
  });

  const recognizeWith = (
    image: InputFile,
    languages: readonly LanguageData[],
    job: JobContext,
  ): Promise<RecognizedText> => {
    const codes = languages.map((language) => language.code).join('+');
    if (native !== undefined && languages.every((language) => native.has(language.code))) {
      return nativePool.run(
        (_slot, signal) =>
          native.recognize(image, codes, { workDir: job.workDir, signal, timeoutMs: o.timeoutMs }),
        job.signal,
      );
    }
    // Read when a worker is free, so queued jobs do not hold their images in memory.
    return jsPools
      .for(languages)
      .run(async (worker) => worker.recognize(await readFile(image.path)), job.signal);
  };

  return {
    info,
    languages: () => registry.list(),
    async recognize(image: InputFile, language: string, job: JobContext): Promise<OcrOutput> {
      const languages = registry.select(language);
      const header = await readImageHeader(image);
      checkPixelCap(header.pages, o.maxImagePixels, image.label);
      try {
        // The shared queue bounds OCR together with compress/merge/split, so the CPUs are never
        // oversubscribed whatever mix of languages and operations arrives.
        const { text, confidence } = await o.queue.run(
          () => recognizeWith(image, languages, job),
          job.signal,
        );
        return { text, confidence, language };
      } catch (error) {
        throw toApiError(error, image, header, job.signal);
      }
    },
    async close(): Promise<void> {
      await Promise.all([jsPools.close(), nativePool.close()]);
    },
  };
}
