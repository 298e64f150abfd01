// Ghostscript settings per compression level, picked from measurement on this project's corpus with
// Ghostscript 10.0 (the table and the commands are in ./README.md), not from folklore (issue #3).
// - low: /printer keeps images at print resolution (300 dpi; JPEGs at or under 450 dpi pass through
//   untouched) and rewrites everything else; on camera JPEGs it cannot win, so `original` or `qpdf`
//   is the usual answer there, as the OpenAPI `CompressionLevel` text promises.
// - medium: /ebook at 150 dpi, the size the bench holds `medium` to (issue #6).
// - high: /ebook at 100 dpi, not /screen. /screen differs from /ebook only in image resolution (72) and
//   page auto-rotation (gs_pdfwr.ps), and came out larger than /ebook on text (issue #3 saw the same).
//   100 dpi keeps a 300 dpi scan's text legible (PSNR 21.2 vs 18.9 at 72 dpi) and still beats every
//   baseline of at least its quality on size.
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
}

export const GHOSTSCRIPT_PRESETS: Readonly<Record<CompressionLevel, GhostscriptPreset>> = {
  low: { pdfSettings: '/printer', imageDpi: 300, monoDpi: 1200, imageFilter: 'auto' },
  medium: { pdfSettings: '/ebook', imageDpi: 150, monoDpi: 300, imageFilter: 'dct' },
  high: { pdfSettings: '/ebook', imageDpi: 100, monoDpi: 300, imageFilter: 'dct' },
};

/**
 * Whether this Ghostscript still has its PostScript-based PDF interpreter (9.56 made the new C one the
 * default; 10.02 removed the old one). On 10.0 the new interpreter spent about 0.55 s per page on
 * PDFs with composite (CID TrueType) fonts, subset or not, which is what Word and browsers write: 5-9x
 * the legacy one (README.md). Elsewhere the new one is as fast or faster, and on text in standard fonts
 * its output is smaller (the legacy one embeds substitutes for them), so the legacy interpreter is used
 * only for PDFs with composite fonts (font-survey.ts).
 */
export function hasLegacyInterpreter(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major < 10 || (major === 10 && minor < 2);
}

export interface GhostscriptArgsOptions {
  /** Pass `-dNEWPDF=false` (see hasLegacyInterpreter). */
  legacyInterpreter: boolean;
}

/**
 * Ghostscript's arguments to rewrite `inputPath` as `outputName` (relative to the working folder, so
 * no `%` in a temp path is ever read as a page-number template by `-sOutputFile`).
 */
export function ghostscriptArgs(
  level: CompressionLevel,
  inputPath: string,
  outputName: string,
  o: GhostscriptArgsOptions,
): string[] {
  const preset = GHOSTSCRIPT_PRESETS[level];
  return [
    '-q',
    '-dSAFER',
    '-dBATCH',
    '-dNOPAUSE',
    '-sDEVICE=pdfwrite',
    ...(o.legacyInterpreter ? ['-dNEWPDF=false'] : []),
    `-dPDFSETTINGS=${preset.pdfSettings}`,
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
    `-sOutputFile=${outputName}`,
    // `-f` makes gs take the next argument as a file even if it starts with `-`.
    '-f',
    inputPath,
  ];
}
