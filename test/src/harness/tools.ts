// System tools some suites need (qpdf, Ghostscript, native tesseract, curl as a second HTTP client). CI installs them all (.ci/run);
// on a machine without one, the suites that force it are skipped and say why, rather than failing
// for a reason that has nothing to do with the code (brief: "a test that needs a system tool says so
// when it skips").
import { execFileSync } from 'node:child_process';
import { delimiter, join } from 'node:path';

/** Some python3 on PATH imports LibreOffice's UNO bridge (python3-uno), as the server looks for one. */
function pythonWithUno(): boolean {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '')
    .some((dir) => {
      try {
        execFileSync(join(dir, 'python3'), ['-c', 'import uno'], { stdio: 'ignore', timeout: 10_000 });
        return true;
      } catch {
        return false;
      }
    });
}

function installed(command: string, versionFlag: string): boolean {
  try {
    execFileSync(command, [versionFlag], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

export const tools = {
  qpdf: installed('qpdf', '--version'),
  ghostscript: installed('gs', '--version'),
  tesseract: installed('tesseract', '--version'),
  ocrmypdf: installed('ocrmypdf', '--version'),
  pdftotext: installed('pdftotext', '-v'),
  pdftoppm: installed('pdftoppm', '-v'),
  curl: installed('curl', '--version'),
  // Office to PDF: LibreOffice and the Python UNO bridge that drives it.
  libreoffice: installed('soffice', '--version') && pythonWithUno(),
} as const;

/** True when `tool` is missing; logs that the named tests are skipped for that reason. */
export function missing(tool: keyof typeof tools, what: string): boolean {
  if (tools[tool]) return false;
  console.warn(`[e2e] skipping ${what}: ${tool} is not installed on this machine`);
  return true;
}

/**
 * The engines of OCR of documents the server can be made to use here with
 * PDN_OCR_PDF_ENGINE: OCRmyPDF, the native tesseract with qpdf and poppler, and tesseract.js (bundled;
 * it draws a PDF's pages with poppler).
 */
export const ocrPdfEngines: readonly ('ocrmypdf' | 'tesseract' | 'tesseract.js')[] = [
  // pdftotext: the suites read the searchable PDF's text back with it.
  ...(tools.ocrmypdf && tools.tesseract && tools.pdftotext ? (['ocrmypdf'] as const) : []),
  ...(tools.tesseract && tools.qpdf && tools.pdftoppm && tools.pdftotext ? (['tesseract'] as const) : []),
  ...(tools.pdftoppm && tools.pdftotext ? (['tesseract.js'] as const) : []),
];

/** True when the server cannot OCR documents here at all; logs that the named tests are skipped. */
export function cannotOcrDocuments(what: string): boolean {
  if (ocrPdfEngines.length > 0) return false;
  console.warn(`[e2e] skipping ${what}: poppler (pdftoppm, pdftotext) is not installed`);
  return true;
}
