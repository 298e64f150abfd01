// The optional accelerator: the native `tesseract` binary, run once per image through
// runTool with OMP_THREAD_LIMIT=1 (2.3x faster than letting OpenMP spread one image over every core;
// jobs run side by side instead).
//
// Language data: the binary needs plain `.traineddata`, and it uses its own folder's, never the npm
// packages' gzip'd files. That folder is PDN_TESSDATA_DIR when set, else the binary's built-in one
// (Debian: /usr/share/tesseract-ocr/5/tessdata), as `tesseract --list-langs` reports it. Gunzipping the
// npm data into a cache was the alternative; it would need a writable cache folder and would run a
// second copy of models the operator already manages with their package manager, so it is not done.
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MemoryLimit, runTool } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';
import type { EngineLog } from '../types.js';
import { LANGUAGE_CODE, type LanguageData } from './language-registry.js';
import { isOutOfMemory, OcrJobError, type RecognizedText } from './recognizer.js';
import { reportSkippedData, traineddataProblem } from './traineddata-file.js';
import { wordsOfTsv } from './tsv-words.js';

/** `--list-langs` prints `List of available languages in "/usr/share/tesseract-ocr/5/tessdata/" (4):`. */
const LIST_HEADER = /languages in "([^"]+)"/;
const LIST_TIMEOUT_MS = 10_000;

export interface NativeJob {
  workDir: string;
  signal: AbortSignal;
  timeoutMs: number;
  memoryLimit: MemoryLimit;
}

/** Mean of the word rows' confidences in tesseract's TSV (level 5), as TessBaseAPI::MeanTextConf. */
export function meanWordConfidence(tsv: string): number {
  const confidences: number[] = [];
  for (const line of tsv.split('\n').slice(1)) {
    const columns = line.split('\t');
    const confidence = Number(columns[10]);
    if (columns[0] === '5' && confidence >= 0 && (columns[11] ?? '').trim() !== '')
      confidences.push(confidence);
  }
  if (confidences.length === 0) return 0;
  return Math.round(confidences.reduce((sum, value) => sum + value, 0) / confidences.length);
}

/**
 * The machine's tesseract as listed at start: undefined without the binary, the error when it did not
 * answer. Listed once for both OCR engines (image OCR and OCR of documents), so its languages are read,
 * and the data it skips logged, once.
 */
export type NativeListing = NativeTesseract | Error | undefined;

export async function listNativeTesseract(
  tool: ToolInfo | undefined,
  tessdataDir: string | undefined,
  log: EngineLog,
): Promise<NativeListing> {
  if (tool === undefined) return undefined;
  return NativeTesseract.start(tool, tessdataDir, log).catch((error: unknown) =>
    error instanceof Error ? error : new Error(String(error)),
  );
}

export class NativeTesseract {
  private constructor(
    readonly tool: ToolInfo,
    readonly tessdataDir: string,
    /** The usable languages of `tessdataDir`, all `system`. */
    readonly languages: readonly LanguageData[],
  ) {}

  /** Asks the binary which languages it has in `tessdataDir` (or its own folder) and keeps the usable ones. */
  static async start(
    tool: ToolInfo,
    tessdataDir: string | undefined,
    log: EngineLog,
  ): Promise<NativeTesseract> {
    const args = ['--list-langs', ...(tessdataDir === undefined ? [] : ['--tessdata-dir', tessdataDir])];
    const listed = await runTool(tool.path, args, { cwd: tmpdir(), timeoutMs: LIST_TIMEOUT_MS });
    const output = `${listed.stdout}\n${listed.stderr}`;
    const dir = LIST_HEADER.exec(output)?.[1];
    if (listed.exitCode !== 0 || dir === undefined) {
      throw new Error(`tesseract --list-langs failed (exit ${listed.exitCode}): ${output.trim()}`);
    }
    const languages: LanguageData[] = [];
    const codes = listed.stdout
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
    // Optional data whose absence only shows as pages left unturned: said once, at start.
    if (!codes.includes('osd'))
      log.warn('OCR: no osd.traineddata, so rotate=true cannot detect page orientation', {
        tessdata: dir,
        install:
          'tesseract-ocr-osd (Debian, Ubuntu), or osd.traineddata from the tesseract-ocr tessdata repository',
      });
    for (const code of codes) {
      if (!LANGUAGE_CODE.test(code)) continue;
      const file = join(dir, `${code}.traineddata`);
      // The same rule as for tesseract.js, so both paths accept the same codes (osd is not a language).
      const problem = await traineddataProblem(file);
      if (problem === undefined) languages.push({ code, source: 'system', file });
      else reportSkippedData(log, code, file, problem);
    }
    return new NativeTesseract(tool, dir, languages);
  }

  has(code: string): boolean {
    return this.languages.some((language) => language.code === code);
  }

  /**
   * OCR of `pages` (images an OCR process wrote, page-images.ts) with `codes` (`"deu+eng"`), under the
   * job's memory limit; outputs go to `job.workDir`. Several pages are handed over as a list file, which
   * tesseract reads page by page, ending each page's text with a form feed (its page_separator).
   */
  async recognize(pages: readonly string[], codes: string, job: NativeJob): Promise<RecognizedText> {
    const outputBase = join(job.workDir, 'ocr');
    let input = pages[0] ?? '';
    if (pages.length > 1) {
      input = join(job.workDir, 'pages.txt');
      await writeFile(input, `${pages.join('\n')}\n`);
    }
    const args = [
      input,
      outputBase,
      '-l',
      codes,
      '--tessdata-dir',
      this.tessdataDir,
      '-c',
      'tessedit_create_txt=1',
      '-c',
      'tessedit_create_tsv=1',
    ];
    const result = await runTool(this.tool.path, args, {
      cwd: job.workDir,
      timeoutMs: job.timeoutMs,
      signal: job.signal,
      env: { OMP_THREAD_LIMIT: '1' },
      memoryLimit: job.memoryLimit,
    });
    if (result.exitCode !== 0) {
      // The pages are our own files: an allocation refused under the limit shows as Leptonica's
      // "pixdata_malloc fail" or as a crash (measured: SIGSEGV, SIGABRT after std::bad_alloc).
      const kind = isOutOfMemory(result.stderr) || result.exitCode > 128 ? 'memory' : 'failed';
      throw new OcrJobError(kind, `tesseract exited with code ${result.exitCode}: ${result.stderr.trim()}`);
    }
    const [text, tsv] = await Promise.all([
      readFile(`${outputBase}.txt`, 'utf8'),
      readFile(`${outputBase}.tsv`, 'utf8'),
    ]);
    // Form feeds between pages, as tesseract.js pages are joined (openapi.yaml `ocr`); none after the last.
    return {
      text: text.endsWith('\f') ? text.slice(0, -1) : text,
      confidence: meanWordConfidence(tsv),
      words: wordsOfTsv(tsv),
    };
  }
}
