// Which external tools this machine has, found once at start-up ("the choice is detected at
// start-up ... and visible in logs"). Engines pick qpdf/Ghostscript/tesseract only when present here.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { runTool } from './run-tool.js';

export interface ToolInfo {
  /** Absolute path of the binary, so later runs do not depend on PATH lookups. */
  path: string;
  version: string;
}

export interface DetectedTools {
  qpdf?: ToolInfo;
  ghostscript?: ToolInfo;
  tesseract?: ToolInfo;
  /** util-linux's prlimit: OCR runs its decoders and recognisers under a memory limit. */
  prlimit?: ToolInfo;
  /** poppler's text extractor: the compress content check's first reader of words. */
  pdftotext?: ToolInfo;
  /** poppler's renderer: the compress content check draws pages with it, independently of the
   * Ghostscript that rewrote them. */
  pdftoppm?: ToolInfo;
  /** poppler's image lister: the content check counts the images each sampled page draws. */
  pdfimages?: ToolInfo;
  /** poppler's document reader: page sizes and rotations for OCR of documents. */
  pdfinfo?: ToolInfo;
  /** OCR of documents: the reference tool, used whole when installed. */
  ocrmypdf?: ToolInfo;
  /** LibreOffice's `soffice`: the converter of Office to PDF (engines/converters.ts). */
  libreoffice?: ToolInfo;
  /** The converter of HTML to PDF (engines/converters.ts). */
  chromium?: ToolInfo;
  /** A Python with LibreOffice's UNO bridge (python3-uno), which drives warm LibreOffice instances. */
  pyuno?: ToolInfo;
  /** util-linux's unshare: LibreOffice runs in a network namespace of its own where it may make one. */
  unshare?: ToolInfo;
}

/** `--version` answers within a second; anything slower is a broken install, not a tool to rely on. */
const VERSION_TIMEOUT_MS = 10_000;

/** Each tool's binary name, the arguments that make it print its version, and how to read it. */
const KNOWN_TOOLS = {
  // "qpdf version 11.3.0"
  qpdf: { binary: 'qpdf', args: ['--version'], version: /qpdf version (\S+)/ },
  // "10.00.0"
  ghostscript: { binary: 'gs', args: ['--version'], version: /^(\d+\.\d+(?:\.\d+)?)/ },
  // "tesseract 5.3.0"
  tesseract: { binary: 'tesseract', args: ['--version'], version: /tesseract v?(\S+)/ },
  // "prlimit from util-linux 2.38.1"
  prlimit: { binary: 'prlimit', args: ['--version'], version: /util-linux (\S+)/ },
  // "pdftotext version 22.12.0" (it reads `--version` as a file name)
  pdftotext: { binary: 'pdftotext', args: ['-v'], version: /pdftotext version (\S+)/ },
  // "pdftoppm version 22.12.0"
  pdftoppm: { binary: 'pdftoppm', args: ['-v'], version: /pdftoppm version (\S+)/ },
  // "pdfimages version 22.12.0"
  pdfimages: { binary: 'pdfimages', args: ['-v'], version: /pdfimages version (\S+)/ },
  // "pdfinfo version 22.12.0"
  pdfinfo: { binary: 'pdfinfo', args: ['-v'], version: /pdfinfo version (\S+)/ },
  // "14.0.1+dfsg1"
  ocrmypdf: { binary: 'ocrmypdf', args: ['--version'], version: /^(\d+\.\d+(?:\.\d+)?)/ },
  // "LibreOffice 7.4.7.2 40(Build:2)"
  libreoffice: { binary: 'soffice', args: ['--version'], version: /LibreOffice (\d\S*)/ },
  // "Chromium 120.0.6099.224 built on Debian 12.4, running on Debian 12.8"
  chromium: { binary: 'chromium', args: ['--version'], version: /Chromium (\d\S*)/ },
  // "3.11.2": Debian builds python3-uno for its own python3, which a python3 found earlier on PATH
  // (pyenv's, a virtualenv's) may not be; the first that imports uno is taken.
  pyuno: {
    binary: 'python3',
    args: ['-c', 'import uno, platform; print(platform.python_version())'],
    version: /^(3\.\d+\.\d+)/,
  },
  // "unshare from util-linux 2.38.1"
  unshare: { binary: 'unshare', args: ['--version'], version: /util-linux (\S+)/ },
} as const satisfies Record<
  keyof DetectedTools,
  { binary: string; args: readonly string[]; version: RegExp }
>;

/** Every executable `binary` on PATH, in PATH order. */
async function findOnPath(binary: string): Promise<string[]> {
  const found: string[] = [];
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, binary);
    try {
      await access(candidate, constants.X_OK);
      found.push(candidate);
    } catch {
      // Not in this folder.
    }
  }
  return found;
}

async function versionOf(
  path: string,
  args: readonly string[],
  pattern: RegExp,
): Promise<string | undefined> {
  try {
    const result = await runTool(path, args, { cwd: tmpdir(), timeoutMs: VERSION_TIMEOUT_MS });
    const version = pattern.exec(`${result.stdout}\n${result.stderr}`.trim())?.[1];
    return result.exitCode === 0 ? version : undefined;
  } catch {
    return undefined;
  }
}

/** The first `binary` on PATH that says its version: one that cannot is not one we trust to run jobs. */
async function detect(
  binary: string,
  args: readonly string[],
  pattern: RegExp,
): Promise<ToolInfo | undefined> {
  for (const path of await findOnPath(binary)) {
    const version = await versionOf(path, args, pattern);
    if (version !== undefined) return { path, version };
  }
  return undefined;
}

/**
 * Looks for qpdf, Ghostscript, tesseract, prlimit, poppler's pdftotext, pdftoppm, pdfimages and pdfinfo,
 * OCRmyPDF, LibreOffice, Chromium, Python's UNO bridge and unshare on PATH and asks each for its
 * version. Call once.
 */
export async function detectTools(): Promise<DetectedTools> {
  const entries = await Promise.all(
    Object.entries(KNOWN_TOOLS).map(
      async ([name, tool]) => [name, await detect(tool.binary, tool.args, tool.version)] as const,
    ),
  );
  const tools: DetectedTools = {};
  for (const [name, info] of entries) {
    if (info !== undefined) tools[name as keyof DetectedTools] = info;
  }
  return tools;
}
