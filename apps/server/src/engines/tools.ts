// Which external tools this machine has, found once at start-up (issue #2: "the choice is detected at
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
  /** util-linux's prlimit: OCR runs its decoders and recognisers under a memory limit (issue #11). */
  prlimit?: ToolInfo;
  /** poppler's text extractor: the compress content check's first reader of words (issue #9). */
  pdftotext?: ToolInfo;
  /** poppler's renderer: the compress content check draws pages with it, independently of the
   * Ghostscript that rewrote them (issue #9). */
  pdftoppm?: ToolInfo;
  /** poppler's image lister: the content check counts the images each sampled page draws. */
  pdfimages?: ToolInfo;
  /** poppler's document reader: page sizes and rotations for OCR of documents (issue #17). */
  pdfinfo?: ToolInfo;
  /** OCR of documents (issue #17): the reference tool, used whole when installed. */
  ocrmypdf?: ToolInfo;
}

/** `--version` answers within a second; anything slower is a broken install, not a tool to rely on. */
const VERSION_TIMEOUT_MS = 10_000;

/** Each tool's binary name, the argument that makes it print its version, and how to read it. */
const KNOWN_TOOLS = {
  // "qpdf version 11.3.0"
  qpdf: { binary: 'qpdf', flag: '--version', version: /qpdf version (\S+)/ },
  // "10.00.0"
  ghostscript: { binary: 'gs', flag: '--version', version: /^(\d+\.\d+(?:\.\d+)?)/ },
  // "tesseract 5.3.0"
  tesseract: { binary: 'tesseract', flag: '--version', version: /tesseract v?(\S+)/ },
  // "prlimit from util-linux 2.38.1"
  prlimit: { binary: 'prlimit', flag: '--version', version: /util-linux (\S+)/ },
  // "pdftotext version 22.12.0" (it reads `--version` as a file name)
  pdftotext: { binary: 'pdftotext', flag: '-v', version: /pdftotext version (\S+)/ },
  // "pdftoppm version 22.12.0"
  pdftoppm: { binary: 'pdftoppm', flag: '-v', version: /pdftoppm version (\S+)/ },
  // "pdfimages version 22.12.0"
  pdfimages: { binary: 'pdfimages', flag: '-v', version: /pdfimages version (\S+)/ },
  // "pdfinfo version 22.12.0"
  pdfinfo: { binary: 'pdfinfo', flag: '-v', version: /pdfinfo version (\S+)/ },
  // "14.0.1+dfsg1"
  ocrmypdf: { binary: 'ocrmypdf', flag: '--version', version: /^(\d+\.\d+(?:\.\d+)?)/ },
} as const satisfies Record<keyof DetectedTools, { binary: string; flag: string; version: RegExp }>;

async function findOnPath(binary: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, binary);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

async function detect(binary: string, flag: string, versionPattern: RegExp): Promise<ToolInfo | undefined> {
  const path = await findOnPath(binary);
  if (path === undefined) return undefined;
  try {
    const result = await runTool(path, [flag], { cwd: tmpdir(), timeoutMs: VERSION_TIMEOUT_MS });
    const version = versionPattern.exec(`${result.stdout}\n${result.stderr}`.trim())?.[1];
    // A binary that cannot say its version is not one we trust to run jobs.
    if (result.exitCode !== 0 || version === undefined) return undefined;
    return { path, version };
  } catch {
    return undefined;
  }
}

/** Looks for qpdf, Ghostscript, tesseract, prlimit, poppler's pdftotext, pdftoppm, pdfimages and pdfinfo, and OCRmyPDF on PATH and asks each for its version. Call once. */
export async function detectTools(): Promise<DetectedTools> {
  const entries = await Promise.all(
    Object.entries(KNOWN_TOOLS).map(
      async ([name, tool]) => [name, await detect(tool.binary, tool.flag, tool.version)] as const,
    ),
  );
  const tools: DetectedTools = {};
  for (const [name, info] of entries) {
    if (info !== undefined) tools[name as keyof DetectedTools] = info;
  }
  return tools;
}
