// The OCR languages this server accepts and where each one's data lives: the
// `@tesseract.js-data/<code>` packages the server depends on (`bundled`), plus the `.traineddata` files an
// operator puts in PDN_TESSDATA_DIR (`system`). Requests name languages as `eng` or `eng+deu`; every code
// is checked here before any worker exists, because tesseract.js waits forever on a language it cannot
// load.
import { constants } from 'node:fs';
import { access, readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { InvalidInputError } from '../../errors.js';
import type { EngineLog, Language } from '../types.js';
import { reportSkippedData, traineddataProblem } from './traineddata-file.js';

export interface LanguageData {
  code: string;
  source: Language['source'];
  /** The traineddata file: gzip-compressed for bundled languages, plain for system ones. */
  file: string;
}

const DATA_PACKAGE_PREFIX = '@tesseract.js-data/';
/**
 * Codes are lower-case words (`eng`, `chi_sim`), joined by `+` in a request (OpenAPI `ocr` operation).
 * Also what the native binary's languages must look like, so both paths accept the same codes.
 */
export const LANGUAGE_CODE = /^[a-z_]+$/;

/**
 * Languages one request may combine (openapi.yaml `ocr` `language`): each one adds
 * its model to the worker and its pass to every line, and each set of languages needs a worker of its own.
 */
export const MAX_LANGUAGES = 5;

export class LanguageRegistry {
  readonly #byCode: ReadonlyMap<string, LanguageData>;

  constructor(languages: readonly LanguageData[]) {
    this.#byCode = new Map(languages.map((language) => [language.code, language]));
  }

  /** Sorted by code, as `GET /api/v1/languages` lists them. */
  list(): Language[] {
    return [...this.#byCode.values()]
      .map(({ code, source }) => ({ code, source }))
      .sort((a, b) => a.code.localeCompare(b.code));
  }

  has(code: string): boolean {
    return this.#byCode.has(code);
  }

  /**
   * Parses the raw `language` field (`"eng"`, `"eng+deu"`) into the data of each code. Order and repeats
   * do not matter: the set comes back sorted by code, each code once, so `deu+eng`
   * and `eng+deu+eng` share one worker and read the same way.
   */
  select(raw: string): LanguageData[] {
    const codes = [...new Set(raw.split('+'))].sort();
    if (!codes.every((code) => LANGUAGE_CODE.test(code))) {
      throw new InvalidInputError(
        `language "${raw}" is not a language code or codes joined by "+" (e.g. "eng" or "eng+deu")`,
      );
    }
    // Before looking codes up, so the answer does not depend on which languages this server has.
    if (codes.length > MAX_LANGUAGES) {
      throw new InvalidInputError(
        `language "${raw}" names ${codes.length} languages: at most ${MAX_LANGUAGES} per request`,
      );
    }
    return codes.map((code) => {
      const language = this.#byCode.get(code);
      if (language === undefined) {
        throw new InvalidInputError(
          `unknown OCR language "${code}": GET /api/v1/languages lists the codes this server accepts`,
        );
      }
      return language;
    });
  }
}

/** The `@tesseract.js-data/*` dependencies of @pdn/server, each resolved like an import would be. */
async function bundledLanguages(): Promise<LanguageData[]> {
  // src/engines/ocr and dist/engines/ocr sit at the same depth below the package root.
  const manifest = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  const require = createRequire(import.meta.url);
  const names = Object.keys(manifest.dependencies ?? {}).filter((name) =>
    name.startsWith(DATA_PACKAGE_PREFIX),
  );
  return Promise.all(
    names.map(async (name): Promise<LanguageData> => {
      const code = name.slice(DATA_PACKAGE_PREFIX.length);
      // The LSTM-only integer models: what tesseract.js fetches by default for OEM 1, and small.
      const folder = join(dirname(require.resolve(`${name}/package.json`)), '4.0.0_best_int');
      const file = join(folder, `${code}.traineddata.gz`);
      // A broken install fails the start-up here rather than hanging a worker later.
      await access(file, constants.R_OK);
      return { code, source: 'bundled', file };
    }),
  );
}

/** Usable `<code>.traineddata` files of `dir`; a file tesseract.js could not initialise is skipped. */
async function systemLanguages(dir: string, log: EngineLog): Promise<LanguageData[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    throw new Error(`PDN_TESSDATA_DIR ${dir} cannot be read`, { cause: error });
  }
  const languages: LanguageData[] = [];
  for (const name of names.sort()) {
    const code = name.endsWith('.traineddata') ? name.slice(0, -'.traineddata'.length) : '';
    if (!LANGUAGE_CODE.test(code)) continue;
    const file = join(dir, name);
    const problem = await traineddataProblem(file);
    if (problem === undefined) languages.push({ code, source: 'system', file });
    else reportSkippedData(log, code, file, problem);
  }
  return languages;
}

/**
 * Bundled languages plus those of `tessdataDir`. A code present in both stays bundled: the npm data is
 * the one the tests cover, and the folder is for adding languages, not replacing them.
 */
export async function loadLanguageRegistry(o: {
  tessdataDir?: string;
  log: EngineLog;
}): Promise<LanguageRegistry> {
  const bundled = await bundledLanguages();
  const codes = new Set(bundled.map((language) => language.code));
  const system = o.tessdataDir === undefined ? [] : await systemLanguages(o.tessdataDir, o.log);
  return new LanguageRegistry([...bundled, ...system.filter((language) => !codes.has(language.code))]);
}
