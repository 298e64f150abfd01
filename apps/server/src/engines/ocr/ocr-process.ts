// One OCR process: a Node process of its own, started under a memory limit, that decodes uploads into
// page images and recognises them with tesseract.js. Worker threads' resourceLimits bound the
// JavaScript heap only, not ArrayBuffers, WebAssembly memory or what native decoders allocate: a
// process limit bounds all of them, whatever a header claimed. An allocation past the limit fails
// inside the process (or ends it); the server only sees a failed request. Started like every tool
// (processes/spawn-tool.ts): in a process group of its own, and killed by the kernel when the server
// dies, so a killed server leaves no OCR process recognising on for nobody.
//
// `--disable-wasm-trap-handler`: with the trap handler V8 reserves about 10 GB of address space per
// WebAssembly memory, more than the address-space backstop allows; without it V8 checks bounds in
// code instead and reserves what it can within the limit.
import type { ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { killGroup, spawnTool } from '../../processes/spawn-tool.js';
import type { Fragment, FragmentRequest, ImageCheckRequest } from '../images-pdf/image-fragment.js';
import { limitedCommand, type MemoryLimit } from '../run-tool.js';
import type { EngineLog } from '../types.js';
import type { ImageFormat } from './image-header.js';
import type { LanguageData } from './language-registry.js';
import { decodes, type OcrReply, type OcrRequest } from './ocr-process-protocol.js';
import type { PageImage } from './page-images.js';
import { isOutOfMemory, OcrJobError, type RecognizedText } from './recognizer.js';
import type { PoolWorker } from './worker-pool.js';

/**
 * The built entry point. A process of its own cannot load TypeScript, so tests running the sources
 * use the build's copy (turbo builds before it tests); src/engines/ocr and dist/engines/ocr sit at the
 * same depth below the package root.
 */
const ENTRY_POINT = fileURLToPath(new URL('../../../dist/engines/ocr/ocr-process-main.js', import.meta.url));

/** Below the server's own priority, like every tool run (run-tool.ts), so HTTP stays responsive. */
const NICENESS = 10;
/** The tail of what the process printed, to tell a memory failure from a crash. */
const MAX_STDERR = 16 * 1024;

export interface OcrProcessOptions {
  memoryLimit: MemoryLimit;
  /** The languages of its tesseract.js worker; none for a process that only decodes. */
  languages: readonly LanguageData[];
  timeoutMs: number;
  /** Where what the process prints goes, at debug level: never printed raw beside the JSON log. */
  log: EngineLog;
}

interface Pending {
  op: OcrRequest['op'];
  resolve(result: unknown): void;
  reject(error: OcrJobError): void;
}

type RequestBody = OcrRequest extends infer R ? (R extends OcrRequest ? Omit<R, 'id'> : never) : never;

export class OcrProcess implements PoolWorker {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, Pending>();
  readonly #exited: Promise<void>;
  #nextId = 1;
  #alive = true;
  #stderr = '';

  private constructor(child: ChildProcess, log: EngineLog) {
    this.#child = child;
    // tesseract.js's decoders and recogniser print their warnings here (e.g. "Warning: Invalid
    // resolution 0 dpi"): into the log, with the tail kept to explain a crash.
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.#stderr = (this.#stderr + text).slice(-MAX_STDERR);
      log.debug?.('OCR process stderr', { pid: child.pid, stderr: text.trimEnd() });
    });
    child.on('message', (reply: OcrReply) => {
      const pending = this.#pending.get(reply.id);
      if (pending === undefined) return;
      this.#pending.delete(reply.id);
      if (reply.ok) pending.resolve(reply.result);
      else pending.reject(new OcrJobError(reply.kind, reply.message));
    });
    this.#exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.#alive = false;
        for (const [id, pending] of this.#pending) {
          this.#pending.delete(id);
          pending.reject(this.#died(pending.op, code, signal));
        }
        resolve();
      });
    });
    // A failed spawn also emits exit; the error itself needs a listener or it is thrown.
    child.on('error', () => {});
  }

  /** Starts a process under `o.memoryLimit` and, when given languages, its tesseract.js worker. */
  static async start(o: OcrProcessOptions): Promise<OcrProcess> {
    const [file, args] = limitedCommand(o.memoryLimit, process.execPath, [
      '--disable-wasm-trap-handler',
      ENTRY_POINT,
    ]);
    const child = spawnTool(file, args, {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      // None of the server's secrets; two malloc arenas, as each arena reserves 64 MB of address space.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', MALLOC_ARENA_MAX: '2' },
    });
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, NICENESS);
      } catch {
        // Already gone: the start request below fails.
      }
    }
    const ocrProcess = new OcrProcess(child, o.log);
    try {
      await ocrProcess.#request({ op: 'start', languages: [...o.languages], timeoutMs: o.timeoutMs });
    } catch (error) {
      await ocrProcess.terminate();
      throw error;
    }
    return ocrProcess;
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** Decodes `path` into greyscale pages in `outDir`; over-cap or undecodable images reject. */
  prepare(path: string, format: ImageFormat, maxPixels: number, outDir: string): Promise<PageImage[]> {
    return this.#request({ op: 'prepare', path, format, maxPixels, outDir }) as Promise<PageImage[]>;
  }

  /** The image as a PDF in `output` (image-pdf.ts), a page per image page; answers the page count. */
  imagePdf(path: string, format: ImageFormat, maxPixels: number, output: string): Promise<number> {
    return this.#request({ op: 'image-pdf', path, format, maxPixels, output }) as Promise<number>;
  }

  /** One image's pages as a run of PDF objects for images to PDF (image-fragment.ts). */
  imageFragment(request: FragmentRequest): Promise<Fragment> {
    return this.#request({ op: 'image-fragment', request }) as Promise<Fragment>;
  }

  /** Refuses damaged data that an image's fragment copies undecoded (image-fragment.ts). */
  async imageCheck(request: ImageCheckRequest): Promise<void> {
    await this.#request({ op: 'image-check', request });
  }

  /** Text of the pages, apart by form feeds; needs a process started with languages. */
  recognize(pages: readonly string[]): Promise<RecognizedText> {
    return this.#request({ op: 'recognize', pages: [...pages] }) as Promise<RecognizedText>;
  }

  /** Reads one page of a document into `outBase.pdf`, `outBase.txt` (and `outBase.hocr`); answers its confidence. */
  readPage(image: string, dpi: number, textOnly: boolean, hocr: boolean, outBase: string): Promise<number> {
    return this.#request({ op: 'read-page', image, dpi, textOnly, hocr, outBase }) as Promise<number>;
  }

  async terminate(): Promise<void> {
    if (this.#alive) killGroup(this.#child.pid);
    await this.#exited;
  }

  #request(body: RequestBody): Promise<unknown> {
    if (!this.#alive) return Promise.reject(new OcrJobError('failed', 'the OCR process has exited'));
    const id = this.#nextId;
    this.#nextId += 1;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { op: body.op, resolve, reject });
      this.#child.send({ ...body, id } satisfies OcrRequest);
    });
  }

  /** What a request left unanswered by the process's end means. */
  #died(op: OcrRequest['op'], code: number | null, signal: NodeJS.Signals | null): OcrJobError {
    const how = signal === null ? `exited with code ${code}` : `was ended by ${signal}`;
    const said = this.#stderr.trim().split('\n').slice(-3).join(' | ');
    const message = `the OCR process ${how}${said === '' ? '' : `: ${said}`}`;
    if (isOutOfMemory(this.#stderr)) return new OcrJobError('memory', message);
    // A decoder that crashes on an upload was given bytes it could not read.
    return new OcrJobError(decodes(op) ? 'unreadable' : 'failed', message);
  }
}
