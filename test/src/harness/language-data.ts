// Which OCR language data the servers of a run may see. Debian's tesseract-ocr package brings English
// (tesseract-ocr-eng) and orientation data (tesseract-ocr-osd); every other language is a pack of its
// own (tesseract-ocr-rus, ...), which .ci/run installs and a user's machine may well lack. The README
// promises that a test needing an optional tool or pack skips and says so, so `npm test` runs the
// language-dependent suites a second time with that data hidden (the `without-optional-languages`
// project of vitest.config.ts sets PDN_E2E_OPTIONAL_LANGUAGES=hidden): every server then reads its
// language data from a folder holding only what tesseract-ocr itself installs, and a test that assumes
// an optional pack fails in CI rather than on a user's machine.
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian's tesseract-ocr-<lang> packages put their plain `.traineddata` files. */
export const DEBIAN_TESSDATA = '/usr/share/tesseract-ocr/5/tessdata';

/** True in the run with the optional language data hidden. */
export const optionalLanguagesHidden = process.env.PDN_E2E_OPTIONAL_LANGUAGES === 'hidden';

/** What the tesseract-ocr package itself installs in its data folder (eng and osd are its dependencies). */
const REQUIRED = ['eng.traineddata', 'osd.traineddata', 'pdf.ttf', 'configs', 'tessconfigs'];

let requiredOnly: string | undefined;

/** A folder of links to the required data alone, made once per test process and removed at its exit. */
function requiredOnlyFolder(): string {
  if (requiredOnly !== undefined) return requiredOnly;
  const folder = mkdtempSync(join(tmpdir(), 'pdn-e2e-tessdata-'));
  for (const name of REQUIRED) {
    const target = join(DEBIAN_TESSDATA, name);
    if (existsSync(target)) symlinkSync(target, join(folder, name));
  }
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  requiredOnly = folder;
  return folder;
}

/**
 * The folder of plain `.traineddata` files a test may hand a server as PDN_TESSDATA_DIR: Debian's own,
 * or in the hidden run the required data alone. Undefined where Debian's folder does not exist.
 */
export function debianTessdata(): string | undefined {
  if (!existsSync(DEBIAN_TESSDATA)) return undefined;
  return optionalLanguagesHidden ? requiredOnlyFolder() : DEBIAN_TESSDATA;
}

/**
 * What every server of the run gets before a test's own variables: nothing normally; in the hidden run
 * PDN_TESSDATA_DIR, so that native tesseract and OCRmyPDF, which otherwise read Debian's folder, see
 * only the required data too.
 */
export function languageDataEnv(): Record<string, string> {
  const folder = optionalLanguagesHidden ? debianTessdata() : undefined;
  return folder === undefined ? {} : { PDN_TESSDATA_DIR: folder };
}
