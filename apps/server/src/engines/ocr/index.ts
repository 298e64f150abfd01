// The OCR engine: checks the language and the image's header, then has an OCR process
// decode the image into pages and recognise them with tesseract.js, or hands the pages to the native
// tesseract binary when it is installed and has every requested language.
//
// Memory: decoding and recognition never happen in the server's process.
// Each OCR process and each tesseract run is limited to `memoryBytes` of memory, and at most
// `poolSize` OCR processes exist, whatever the mix of language sets: a header that lies can cost a
// failed request, never the machine's memory.
//
// choice `auto`: native for jobs whose languages all exist in its data folder (about 2x faster on a
// page, see native-tesseract.ts), tesseract.js for the rest; `tesseract.js`: never native;
// `tesseract`: native only, so the accepted languages are the binary's (start-up error without it).
import { ApiError, InternalError, InvalidInputError } from '../../errors.js';
import type { CpuSlots } from '../cpu-slots.js';
import { type MemoryLimit, ToolTimeoutError } from '../run-tool.js';
import type { DetectedTools } from '../tools.js';
import type { EngineInfo, EngineLog, InputFile, OcrEngine, OcrOutput, WorkContext } from '../types.js';
import { checkPixelCap, type ImageHeader, MAX_IMAGE_SIDE, readImageHeader } from './image-header.js';
import { type LanguageData, LanguageRegistry, loadLanguageRegistry } from './language-registry.js';
import type { NativeListing, NativeTesseract } from './native-tesseract.js';
import { OcrProcess } from './ocr-process.js';
import { messageOf, OcrJobError, type RecognizedText } from './recognizer.js';
import { tesseractJsPages } from './tesseract-js-pages.js';
import { TESSERACT_JS_VERSION } from './tesseract-js-worker.js';
import { ANY_WORKER, WorkerPool } from './worker-pool.js';

export interface OcrEngineOptions {
  choice: 'auto' | 'tesseract' | 'tesseract.js';
  tools: DetectedTools;
  /** The machine's tesseract (listNativeTesseract), shared with OCR of documents. */
  native: NativeListing;
  /** The server's bound on heavy jobs: OCR shares it with the PDF engines. */
  cpuSlots: CpuSlots;
  /** PDN_TESSDATA_DIR: extra plain `.traineddata` files (source `system`). */
  tessdataDir?: string;
  /** Pixels of all pages of one image together. */
  maxImagePixels: number;
  /** Memory of each OCR process and tesseract run, in bytes (run-tool.ts limitedCommand). */
  memoryBytes: number;
  /** OCR processes in all, whatever their languages. */
  poolSize: number;
  /** Jobs after which an OCR process is replaced. */
  recycleAfter: number;
  /** An OCR process idle this long is closed (default IDLE_MS). */
  idleMs?: number;
  timeoutMs: number;
  log: EngineLog;
}

/** Two minutes: a warm process saves about a second per job, an idle one holds 60-400 MB. */
const IDLE_MS = 120_000;

/**
 * Turns what an OCR process or a recognizer threw on `image` into the server's error family
 * (src/errors.ts); images to PDF maps its decoder's failures here too.
 */
export function toApiError(
  error: unknown,
  image: InputFile,
  format: string,
  o: Pick<OcrEngineOptions, 'maxImagePixels' | 'memoryBytes'>,
  signal: AbortSignal,
): unknown {
  if (error instanceof ApiError) return error;
  // The client left: whoever aborted knows why; nobody reads this answer.
  if (signal.aborted && error === signal.reason) return error;
  if (error instanceof OcrJobError && error.kind === 'unreadable') {
    return new InvalidInputError(
      `${image.label} could not be read as a ${format.toUpperCase()} image: its data is damaged or incomplete`,
      { cause: error },
    );
  }
  if (error instanceof OcrJobError && error.kind === 'over-cap') {
    return new InvalidInputError(
      `${image.label} is larger than its header declares; this server reads images of at most ` +
        `${o.maxImagePixels.toLocaleString('en-US')} pixels, at most ` +
        `${MAX_IMAGE_SIDE.toLocaleString('en-US')} wide and high`,
      { cause: error },
    );
  }
  if (error instanceof OcrJobError && error.kind === 'memory') {
    return new InvalidInputError(
      `${image.label} needs more memory to read than this server allows for one image ` +
        `(${Math.round(o.memoryBytes / 2 ** 20)} MiB): send a smaller or simpler image`,
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
function chooseNative(o: OcrEngineOptions): NativeTesseract | undefined {
  if (o.choice === 'tesseract.js' || o.native === undefined) return undefined;
  if (!(o.native instanceof Error)) return o.native;
  if (o.choice === 'tesseract') throw o.native;
  o.log.warn('native tesseract unusable, OCR runs on tesseract.js only', { error: messageOf(o.native) });
  return undefined;
}

export async function createOcrEngine(o: OcrEngineOptions): Promise<OcrEngine> {
  if (o.choice === 'tesseract' && o.tools.tesseract === undefined) {
    throw new Error('PDN_OCR_ENGINE=tesseract, but no tesseract binary was found on PATH');
  }
  if (o.tools.prlimit === undefined) {
    throw new Error('OCR needs prlimit (util-linux) on PATH to bound the memory of image decoding');
  }
  const memoryLimit: MemoryLimit = { prlimit: o.tools.prlimit.path, bytes: o.memoryBytes };
  const native = chooseNative(o);
  const registry =
    o.choice === 'tesseract' && native !== undefined
      ? new LanguageRegistry(native.languages)
      : await loadLanguageRegistry(
          o.tessdataDir === undefined ? { log: o.log } : { tessdataDir: o.tessdataDir, log: o.log },
        );
  const languagesOf = new Map<string, readonly LanguageData[]>();
  /** The pool's key for a language set, remembering the languages a process made for it loads. */
  const keyOf = (languages: readonly LanguageData[]) => {
    const codes = languages.map((language) => language.code).join('+');
    languagesOf.set(codes, languages);
    return codes;
  };
  const processes = new WorkerPool<OcrProcess>({
    name: 'OCR processes',
    size: o.poolSize,
    recycleAfter: o.recycleAfter,
    idleMs: o.idleMs ?? IDLE_MS,
    timeoutMs: o.timeoutMs,
    // A process keyed by a language set runs tesseract.js for it; ANY_WORKER's only decodes.
    create: (key) =>
      OcrProcess.start({
        memoryLimit,
        languages: languagesOf.get(key) ?? [],
        timeoutMs: o.timeoutMs,
        log: o.log,
      }),
    // An image that would not decode, or is over the cap, leaves its process intact: a stream of
    // garbage uploads does not cost a process start each.
    keepsWorker: (error) =>
      error instanceof OcrJobError && (error.kind === 'unreadable' || error.kind === 'over-cap'),
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
    languages: registry.list().map((language) => language.code),
    native: native?.languages.map((language) => language.code) ?? [],
  });

  const recognizeWith = (
    image: InputFile,
    header: ImageHeader,
    languages: readonly LanguageData[],
    job: WorkContext,
  ): Promise<RecognizedText> => {
    const codes = keyOf(languages);
    const pagesOf = (ocrProcess: OcrProcess) =>
      ocrProcess
        .prepare(image.path, header.format, o.maxImagePixels, job.workDir)
        .then((pages) => pages.map((page) => page.path));
    if (native !== undefined && languages.every((language) => native.has(language.code))) {
      return processes.run(ANY_WORKER, pagesOf, job.signal).then((pages) =>
        native.recognize(pages, codes, {
          workDir: job.workDir,
          signal: job.signal,
          timeoutMs: o.timeoutMs,
          memoryLimit,
        }),
      );
    }
    return processes.run(
      codes,
      async (ocrProcess) => ocrProcess.recognize(await pagesOf(ocrProcess)),
      job.signal,
    );
  };

  return {
    info,
    languages: () => registry.list(),
    async recognize(image: InputFile, language: string, job: WorkContext): Promise<OcrOutput> {
      const languages = registry.select(language);
      const header = await readImageHeader(image);
      checkPixelCap(header.pages, o.maxImagePixels, image.label);
      try {
        // The shared CPU slots bound OCR together with compress/merge/split, so the CPUs are never
        // oversubscribed whatever mix of languages and operations arrives.
        const { text, confidence, words } = await o.cpuSlots.run(
          () => recognizeWith(image, header, languages, job),
          job.signal,
        );
        // The language set as read: sorted, each code once (language-registry.ts select).
        return { text, confidence, words, language: languages.map((entry) => entry.code).join('+') };
      } catch (error) {
        throw toApiError(error, image, header.format, o, job.signal);
      }
    },
    pages: tesseractJsPages({ version: TESSERACT_JS_VERSION, registry, processes, keyOf }),
    async close(): Promise<void> {
      await processes.close();
    },
  };
}
