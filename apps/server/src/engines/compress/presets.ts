// Ghostscript settings per compression level, picked from measurement on this project's corpus with
// Ghostscript 10.0 (the table and the commands are in ./README.md), not from folklore.
// - low: /printer keeps images at print resolution (300 dpi; JPEGs up to 450 dpi pass through
//   untouched), so camera photos and scans usually come back as `qpdf` or `original`, as the OpenAPI
//   `CompressionLevel` text promises.
// - medium: /ebook at 150 dpi with JPEG forced: 0.3-0.9x the size of plain /ebook, which is what the
//   bench holds `medium` to.
// - high: /ebook at 72 dpi with JPEG forced: smaller than /screen at the same PSNR on every file. 100 dpi
//   matched /screen's PSNR on photos at 1.4x its size. /ebook rather than /screen as the base: they
//   differ only in resolution and page auto-rotation (gs_pdfwr.ps), and /screen was larger on text.
// - medium and high re-encode JPEGs and downsample every image above the level's resolution:
//   by default Ghostscript passes JPEGs through and only downsamples above 1.5x the target, so four
//   camera JPEGs at 96 ppi came back 0.02% smaller from every preset, `/screen` included.
import type { CompressionLevel } from '../types.js';

export interface GhostscriptPreset {
  /** `-dPDFSETTINGS` value: fonts, colour conversion and JPEG quality come from it. */
  pdfSettings: '/printer' | '/ebook';
  /** Target resolution (dpi) for colour and greyscale images; mono images get `monoDpi`. */
  imageDpi: number;
  monoDpi: number;
  /**
   * `dct` forces JPEG for colour and grey images. Ghostscript's automatic choice kept downsampled
   * Flate (PNG-style) photos lossless at /ebook: 4x the size of /printer's JPEGs at the same PSNR
   * (README.md). `auto` leaves the choice to Ghostscript, so `low` keeps lossless images lossless.
   */
  imageFilter: 'auto' | 'dct';
  /**
   * `reencode` decodes JPEG images and encodes them again at the preset's JPEG quality
   * (`-dPassThroughJPEGImages=false`, Ghostscript 9.23+), and downsamples any image above the target
   * resolution (threshold 1.0 instead of 1.5). `passThrough` keeps JPEGs as they are, so `low` never
   * re-compresses a JPEG it does not downsample. Whether re-encoding paid is decided per file: the
   * output competes with the input and qpdf's lossless rewrite (candidates.ts).
   */
  jpegImages: 'passThrough' | 'reencode';
}

export const GHOSTSCRIPT_PRESETS: Readonly<Record<CompressionLevel, GhostscriptPreset>> = {
  low: {
    pdfSettings: '/printer',
    imageDpi: 300,
    monoDpi: 1200,
    imageFilter: 'auto',
    jpegImages: 'passThrough',
  },
  medium: { pdfSettings: '/ebook', imageDpi: 150, monoDpi: 300, imageFilter: 'dct', jpegImages: 'reencode' },
  high: { pdfSettings: '/ebook', imageDpi: 72, monoDpi: 300, imageFilter: 'dct', jpegImages: 'reencode' },
};

/** The downsampling threshold `pdfwriteArgs` sets where the preset re-encodes. */
const REENCODE_THRESHOLD = 1.0;

/**
 * How far over the preset's resolution an image may be drawn before pdfwrite downsamples it: 1.0 where
 * the preset re-encodes (`pdfwriteArgs` sets it), else Ghostscript's own default, 1.5.
 */
export function downsampleThreshold(preset: GhostscriptPreset): number {
  return preset.jpegImages === 'reencode' ? REENCODE_THRESHOLD : 1.5;
}

/**
 * Whether this Ghostscript still has its PostScript-based PDF interpreter (9.56 made the new C one the
 * default; 10.02 removed the old one). On 10.0 the new interpreter spent about 0.55 s per page on
 * PDFs with composite (CID TrueType) fonts, subset or not, which is what Word and browsers write: 5-9x
 * the legacy one (README.md). Elsewhere the new one is as fast or faster, and on text in standard fonts
 * its output is smaller (the legacy one embeds substitutes for them), so the legacy interpreter is used
 * only for PDFs with composite fonts (content-check/pdf-structure.ts).
 */
export function hasLegacyInterpreter(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major < 10 || (major === 10 && minor < 2);
}

/**
 * The presets to try for a level, in order. When `high`'s output fails the content check for how its
 * pages look (not for lost text or structure: `medium` differs from it only in image resolution),
 * `medium`'s is tried before giving up on Ghostscript: a 72 dpi rewrite of a small page of typewritten
 * text fell under the floor (OCRmyPDF's 2400dpi.pdf, 18.8 dB) while `medium`'s kept it (38 dB), and
 * without that step `high` answered with qpdf's 15% where `medium` saved 93%. `medium` and `low` have
 * no milder step worth a run: what fails at `medium` failed at `low` too in every file measured.
 */
export function presetLadder(level: CompressionLevel): CompressionLevel[] {
  return level === 'high' ? ['high', 'medium'] : [level];
}

/** Ghostscript's PDF interpreters: `default` is the new C one, `legacy` the PostScript one (`-dNEWPDF=false`). */
export type PdfInterpreter = 'default' | 'legacy';

/**
 * The interpreters to try, in order. The preferred one first (legacy for composite fonts, for speed);
 * the other one where it exists, because on files one of them misreads the other often works (gs
 * 10.00's new interpreter blanked pages the legacy one drew).
 */
export function interpreterOrder(legacyAvailable: boolean, preferLegacy: boolean): PdfInterpreter[] {
  if (!legacyAvailable) return ['default'];
  return preferLegacy ? ['legacy', 'default'] : ['default', 'legacy'];
}

/** The arguments every Ghostscript run starts with, whatever its device. */
export function ghostscriptCommonArgs(interpreter: PdfInterpreter): string[] {
  return ['-q', '-dSAFER', '-dBATCH', '-dNOPAUSE', ...(interpreter === 'legacy' ? ['-dNEWPDF=false'] : [])];
}

/**
 * Hands Ghostscript `inputPath` through its PDF interpreter (`runpdf`, Resource/Init/pdf_main.ps), never
 * through `run`, which executes anything that does not look like a PDF as PostScript. The path travels
 * as a hexadecimal string (`postscriptString`), so no character in it is read as PostScript syntax, and
 * `--permit-file-read` names the one file -dSAFER lets the `file` operator open. Pages 1 to
 * `pageCount` only, where given (`pdfInterpreterProgram`).
 */
export function pdfInterpreterInput(inputPath: string, pageCount?: number): string[] {
  return [
    `--permit-file-read=${inputPath}`,
    '-c',
    pdfInterpreterProgram(postscriptString(inputPath), pageCount),
  ];
}

/**
 * `text` as a PostScript string in hexadecimal, so that no character of it is read as syntax. A path
 * given instead as a `-s` definition made pdfwrite order a subset font's glyphs differently (the same
 * content, other bytes) from a Ghostscript given the same path in its program, as a started-ahead one
 * is (ghostscript-spares.ts).
 */
export function postscriptString(text: string): string {
  return `<${Buffer.from(text, 'utf8').toString('hex')}>`;
}

/**
 * The PostScript that runs the PDF the expression `file` names through the PDF interpreter, pages 1 to
 * `pageCount` where given. The range is defined in the program, where the interpreter reads it, not
 * given as `-dFirstPage`: a Ghostscript started before its file is known (ghostscript-spares.ts) can
 * only be told it there, and both ways then write the same file.
 */
export function pdfInterpreterProgram(file: string, pageCount?: number): string {
  const pages = pageCount === undefined ? '' : `/FirstPage 1 def /LastPage ${pageCount} def `;
  return `${pages}${file} (r) file runpdf`;
}

/**
 * Ghostscript's arguments to rewrite a PDF with pdfwrite at `level`, with `interpreter`: all but which
 * pages, the output and the input (`ghostscriptArgs`), so that a Ghostscript can be started with them
 * before its file is known (ghostscript-spares.ts).
 */
export function pdfwriteArgs(level: CompressionLevel, interpreter: PdfInterpreter): string[] {
  const preset = GHOSTSCRIPT_PRESETS[level];
  return [
    ...ghostscriptCommonArgs(interpreter),
    '-sDEVICE=pdfwrite',
    `-dPDFSETTINGS=${preset.pdfSettings}`,
    // /ebook turns pages whose text runs sideways (measured): the page would no longer look
    // like the input's, and the content check would rightly refuse it.
    '-dAutoRotatePages=/None',
    // Explicit even where the preset says the same, so the level's resolution is visible here.
    '-dDownsampleColorImages=true',
    '-dDownsampleGrayImages=true',
    '-dDownsampleMonoImages=true',
    `-dColorImageResolution=${preset.imageDpi}`,
    `-dGrayImageResolution=${preset.imageDpi}`,
    `-dMonoImageResolution=${preset.monoDpi}`,
    ...(preset.imageFilter === 'dct'
      ? [
          '-dAutoFilterColorImages=false',
          '-dColorImageFilter=/DCTEncode',
          '-dAutoFilterGrayImages=false',
          '-dGrayImageFilter=/DCTEncode',
        ]
      : []),
    ...(preset.jpegImages === 'reencode'
      ? [
          '-dPassThroughJPEGImages=false',
          `-dColorImageDownsampleThreshold=${REENCODE_THRESHOLD.toFixed(1)}`,
          `-dGrayImageDownsampleThreshold=${REENCODE_THRESHOLD.toFixed(1)}`,
          `-dMonoImageDownsampleThreshold=${REENCODE_THRESHOLD.toFixed(1)}`,
        ]
      : []),
  ];
}

/**
 * Ghostscript's command line to rewrite the `pageCount` pages of `inputPath` as `outputName` (relative to
 * the working folder, so no `%` in a temp path is ever read as a page-number template by
 * `-sOutputFile`). The pages are those inspection found by walking the tree: the legacy interpreter
 * believes the root /Count, and a /Count of 2^32 over one page kept it busy until the tool timeout, a
 * 500 (found by the fuzzer).
 */
export function ghostscriptArgs(
  level: CompressionLevel,
  inputPath: string,
  outputName: string,
  interpreter: PdfInterpreter,
  pageCount: number,
): string[] {
  return [
    ...pdfwriteArgs(level, interpreter),
    `-sOutputFile=${outputName}`,
    ...pdfInterpreterInput(inputPath, pageCount),
  ];
}
