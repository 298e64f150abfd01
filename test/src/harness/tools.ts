// System tools some suites need (qpdf, Ghostscript, native tesseract, curl as a second HTTP client). CI installs them all (.ci/run);
// on a machine without one, the suites that force it are skipped and say why, rather than failing
// for a reason that has nothing to do with the code (brief: "a test that needs a system tool says so
// when it skips").
import { execFileSync } from 'node:child_process';

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
} as const;

/** True when `tool` is missing; logs that the named tests are skipped for that reason. */
export function missing(tool: keyof typeof tools, what: string): boolean {
  if (tools[tool]) return false;
  console.warn(`[e2e] skipping ${what}: ${tool} is not installed on this machine`);
  return true;
}

/**
 * True when the server cannot OCR documents here (issue #17): neither OCRmyPDF nor the native
 * tesseract, qpdf and poppler it falls back to; logs that the named tests are skipped.
 */
export function cannotOcrDocuments(what: string): boolean {
  const native = tools.tesseract && tools.qpdf && tools.pdftoppm && tools.pdftotext;
  if (tools.ocrmypdf || native) return false;
  console.warn(`[e2e] skipping ${what}: neither ocrmypdf nor tesseract + qpdf + poppler is installed`);
  return true;
}
