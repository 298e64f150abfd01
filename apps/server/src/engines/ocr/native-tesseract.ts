// The optional accelerator (issue #3): the native `tesseract` binary, run once per image through
// runTool with OMP_THREAD_LIMIT=1 (2.3x faster than letting OpenMP spread one image over every core,
// issue #3; jobs run side by side instead).
//
// Language data: the binary needs plain `.traineddata`, and it uses its own folder's, never the npm
// packages' gzip'd files. That folder is PDN_TESSDATA_DIR when set, else the binary's built-in one
// (Debian: /usr/share/tesseract-ocr/5/tessdata), as `tesseract --list-langs` reports it. Gunzipping the
// npm data into a cache was the alternative; it would need a writable cache folder and would run a
// second copy of models the operator already manages with their package manager, so it is not done.
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTool } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';
import type { EngineLog, InputFile } from '../types.js';
import { LANGUAGE_CODE, type LanguageData } from './language-registry.js';
import { type RecognizedText, UnreadableImageError } from './recognizer.js';
import { traineddataProblem } from './traineddata-file.js';

/** `--list-langs` prints `List of available languages in "/usr/share/tesseract-ocr/5/tessdata/" (4):`. */
const LIST_HEADER = /languages in "([^"]+)"/;
const LIST_TIMEOUT_MS = 10_000;

export interface NativeJob {
  workDir: string;
  signal: AbortSignal;
  timeoutMs: number;
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
    for (const code of listed.stdout
      .split('\n')
      .slice(1)
      .map((line) => line.trim())) {
      if (!LANGUAGE_CODE.test(code)) continue;
      const file = join(dir, `${code}.traineddata`);
      // The same rule as for tesseract.js, so both paths accept the same codes (osd is not a language).
      const problem = await traineddataProblem(file);
      if (problem === undefined) languages.push({ code, source: 'system', file });
      else log.warn('OCR language skipped by native tesseract', { file, reason: problem });
    }
    return new NativeTesseract(tool, dir, languages);
  }

  has(code: string): boolean {
    return this.languages.some((language) => language.code === code);
  }

  /** OCR of `image` (already checked by its header) with `codes` (`"eng+deu"`); outputs go to `job.workDir`. */
  async recognize(image: InputFile, codes: string, job: NativeJob): Promise<RecognizedText> {
    const outputBase = join(job.workDir, 'ocr');
    // The image is read from its file (never stdin); txt and tsv come from one run, without the
    // form feed tesseract puts after each page by default.
    const args = [
      image.path,
      outputBase,
      '-l',
      codes,
      '--tessdata-dir',
      this.tessdataDir,
      '-c',
      'tessedit_create_txt=1',
      '-c',
      'tessedit_create_tsv=1',
      '-c',
      'page_separator=',
    ];
    const result = await runTool(this.tool.path, args, {
      cwd: job.workDir,
      timeoutMs: job.timeoutMs,
      signal: job.signal,
      env: { OMP_THREAD_LIMIT: '1' },
    });
    if (result.exitCode !== 0) {
      // Leptonica's verdicts on bytes it cannot decode: "Error in pixRead: pix not read" (a damaged
      // PNG) or "Image file <name> cannot be read!".
      if (/Error in pixRead|cannot be read/.test(result.stderr))
        throw new UnreadableImageError(result.stderr.trim());
      throw new Error(`tesseract exited with code ${result.exitCode}: ${result.stderr.trim()}`);
    }
    const [text, tsv] = await Promise.all([
      readFile(`${outputBase}.txt`, 'utf8'),
      readFile(`${outputBase}.tsv`, 'utf8'),
    ]);
    return { text, confidence: meanWordConfidence(tsv) };
  }
}
