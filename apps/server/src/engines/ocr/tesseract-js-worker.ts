// One tesseract.js 7 worker thread, initialised for a language or combination, fully offline.
// It runs inside an OCR process (ocr-process-main.ts), never in the server's own.
// What tesseract.js would otherwise fetch, checked in its source (node_modules/tesseract.js/src):
// - the worker script: worker/node/defaultOptions.js points at its own worker-script/node/index.js;
// - the wasm core: worker-script/node/getCore.js require()s it from the tesseract.js-core package;
// - language data: worker-script/index.js loadLanguage uses the jsdelivr CDN only when `langPath` is
//   unset, and reads `${langPath}/${code}.traineddata[.gz]` from disk when it is a local path. So
//   `langPath` is always set to a folder, and `cacheMethod: 'none'` keeps it from writing a copy of
//   every language into the working directory.

import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Worker as NodeWorker } from 'node:worker_threads';
import Tesseract from 'tesseract.js';
import { ToolTimeoutError } from '../run-tool.js';
import type { LanguageData } from './language-registry.js';
import { messageOf, type PageReading, type RecognizedText, UnreadableImageError } from './recognizer.js';
import { wordsOfTsv } from './tsv-words.js';

export const TESSERACT_JS_VERSION: string = (
  createRequire(import.meta.url)('tesseract.js/package.json') as { version: string }
).version;

/** Where tesseract.js reads a worker's languages from, and whether the files there are gzip'd. */
interface LanguageFolder {
  langPath: string;
  gzip: boolean;
  /** Removes what was made for this worker; its languages are in wasm memory once it is created. */
  dispose(): Promise<void>;
}

/**
 * tesseract.js takes one `langPath` per worker, but each npm package has its own folder (and system
 * languages live elsewhere). Languages sharing a folder use it as is (every single language does);
 * a combination across folders gets a temporary folder of links. Those are named `.traineddata` with
 * `gzip: false` whatever their compression: loadLanguage gunzips any data starting with the gzip magic
 * bytes (worker-script/index.js, "Check for gzip magic numbers"), so both kinds mix.
 */
async function languageFolder(languages: readonly LanguageData[]): Promise<LanguageFolder> {
  const folders = new Set(languages.map((language) => dirname(language.file)));
  const [first] = languages;
  if (folders.size === 1 && first !== undefined) {
    return { langPath: dirname(first.file), gzip: first.file.endsWith('.gz'), dispose: async () => {} };
  }
  const langPath = await mkdtemp(join(tmpdir(), 'pdn-ocr-languages-'));
  const dispose = () => rm(langPath, { recursive: true, force: true });
  try {
    for (const language of languages)
      await symlink(language.file, join(langPath, `${language.code}.traineddata`));
  } catch (error) {
    await dispose();
    throw error;
  }
  return { langPath, gzip: false, dispose };
}

/**
 * Whether a rejected recognize() failed while Leptonica read the image rather than in recognition.
 * tesseract.js rejects with `err.toString()` of whatever its worker-script threw, and reads the image in
 * worker-script/utils/setImage.js before recognition starts: `Error attempting to read image.`
 */
function isDecodingFailure(message: string): boolean {
  return message.includes('Error attempting to read image');
}

export class TesseractJsWorker {
  readonly #worker: Tesseract.Worker;
  /** Rejects if the thread dies, so a job on it fails instead of waiting for its timeout. */
  readonly #died: Promise<never>;
  #terminated = false;

  private constructor(worker: Tesseract.Worker) {
    this.#worker = worker;
    // tesseract.js keeps the Node Worker on `worker.worker` (createWorker.js, resolveObj) without
    // typing it. tesseract.js only sets `onerror` on it, which a Node Worker ignores: without a
    // listener here, an uncaught error in the thread would be rethrown in ours and end the process.
    const thread = (worker as unknown as { worker?: NodeWorker }).worker;
    this.#died = new Promise<never>((_, reject) => {
      thread?.on('error', (error) => reject(new Error(`tesseract.js worker failed: ${messageOf(error)}`)));
      thread?.on('exit', (code) => reject(new Error(`tesseract.js worker exited with code ${code}`)));
    });
    this.#died.catch(() => {});
  }

  /** Starts a worker for `languages` (all validated codes), giving up after `timeoutMs`. */
  static async create(languages: readonly LanguageData[], timeoutMs: number): Promise<TesseractJsWorker> {
    const folder = await languageFolder(languages);
    const codes = languages.map((language) => language.code).join('+');
    const creating = Tesseract.createWorker(codes, Tesseract.OEM.LSTM_ONLY, {
      langPath: folder.langPath,
      gzip: folder.gzip,
      cacheMethod: 'none',
      // Every failure also rejects the job's own promise, which is where we handle it. Without a
      // handler tesseract.js throws it inside its message listener and the process dies.
      errorHandler: () => {},
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ToolTimeoutError(`tesseract.js worker start (${codes})`, timeoutMs)),
        timeoutMs,
      );
    });
    try {
      return new TesseractJsWorker(await Promise.race([creating, timeout]));
    } catch (error) {
      // A worker that starts after all is not wanted any more. One that never does stays parked: its
      // thread is not reachable before createWorker resolves (an unknown language, prevented upstream).
      creating.then((late) => late.terminate()).catch(() => {});
      throw error instanceof Error
        ? error
        : new Error(`tesseract.js worker failed to start: ${messageOf(error)}`);
    } finally {
      clearTimeout(timer);
      await folder.dispose();
    }
  }

  async recognize(image: Buffer): Promise<RecognizedText> {
    const result = await this.#recognize(image, {}, { text: true, tsv: true });
    return {
      text: result.data.text,
      confidence: result.data.confidence,
      words: wordsOfTsv(result.data.tsv ?? ''),
    };
  }

  /**
   * One page of a document: its text, its TSV and tesseract's one-page PDF at `dpi`, text
   * only (invisible, to lay over the original page) or with the image under it. tesseract.js 7 runs
   * tesseract's own PDF renderer (worker-script/utils/dump.js, `pdfTextOnly`), as the native binary's
   * `textonly_pdf` does. Pages are segmented as the tesseract CLI does (PSM 3, fully automatic: columns
   * read one after the other), not as its API by default (6, one uniform block).
   */
  async readPage(image: Buffer, dpi: number, textOnly: boolean, hocr: boolean): Promise<PageReading> {
    const result = await this.#recognize(
      image,
      { user_defined_dpi: String(dpi), tessedit_pageseg_mode: Tesseract.PSM.AUTO, pdfTextOnly: textOnly },
      { text: true, tsv: true, pdf: true, hocr },
    );
    const { text, tsv, pdf } = result.data;
    if (pdf === null) throw new Error('tesseract.js wrote no PDF page');
    const page = { text, tsv: tsv ?? '', pdf: Uint8Array.from(pdf) };
    return hocr && result.data.hocr !== null ? { ...page, hocr: result.data.hocr } : page;
  }

  async #recognize(
    image: Buffer,
    options: Partial<Tesseract.RecognizeOptions> & Record<string, unknown>,
    output: Partial<Tesseract.OutputFormats>,
  ): Promise<Tesseract.RecognizeResult> {
    // A terminated tesseract.js worker throws from an unawaited promise on its next call (send.js,
    // postMessage on null): an unhandled rejection. The pool can terminate this worker while its job
    // is still reading the image, so check first.
    if (this.#terminated) throw new Error('tesseract.js worker was terminated');
    try {
      return await Promise.race([this.#worker.recognize(image, options, output), this.#died]);
    } catch (error) {
      if (isDecodingFailure(messageOf(error))) throw new UnreadableImageError(messageOf(error));
      throw error instanceof Error ? error : new Error(`tesseract.js failed: ${messageOf(error)}`);
    }
  }

  terminate(): Promise<void> {
    this.#terminated = true;
    return this.#worker.terminate().then(() => undefined);
  }
}
