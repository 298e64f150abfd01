// Names of output files, derived from what the client called its upload (openapi.yaml: compress
// `report.pdf` -> `report.compressed.pdf`, split `<name>.pages-3-5.pdf`, merge `merged.pdf`).
// The upload's name is only ever text here, never a path: separators and control characters go.
const FALLBACK = 'document';
/** Code points, not UTF-16 units: a cut inside a surrogate pair leaves half a character. */
const MAX_LENGTH = 100;

/**
 * Characters no name we emit may hold: controls (Cc), format characters (Cf: the
 * bidi overrides and isolates U+202A-202E and U+2066-2069, which turn `invoice\u202Efdp.exe` into
 * "invoiceexe.pdf" on screen, and zero-width ones), line and paragraph separators (Zl, Zp), and the
 * double quote, which would end a quoted header parameter. Also a surrogate left alone (Cs): half a
 * character, which no UTF-8 header can carry (the fuzzer found `filename*` failing on one, a 500).
 */
const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}"]/gu;

/** `name` without the characters that could hide or reorder what a person reads. */
export function withoutControls(name: string): string {
  return name.replace(UNSHOWABLE, '');
}

export function baseName(uploadName: string): string {
  const lastSegment = uploadName.split(/[/\\]/).pop() ?? '';
  const cleaned = [
    ...withoutControls(lastSegment)
      .replace(/\.pdf$/i, '')
      .trim(),
  ]
    .slice(0, MAX_LENGTH)
    .join('');
  return cleaned === '' || /^\.+$/.test(cleaned) ? FALLBACK : cleaned;
}

/**
 * The plain-ASCII stand-in for `name` in Content-Disposition's `filename` (RFC 6266 section 4.3: send
 * `filename*` for the real name and an ASCII `filename` for clients that know no better). Accents are
 * dropped (NFKD then the combining marks), anything else outside printable ASCII becomes `_`.
 */
export function asciiName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]/gu, '_');
}

export const MERGED_NAME = 'merged.pdf';

export function compressedName(uploadName: string): string {
  return `${baseName(uploadName)}.compressed.pdf`;
}

/** OCR of documents (openapi.yaml `ocrPdf`): `scan.pdf` or `scan.png` -> `scan.ocr.pdf` and `scan.ocr.txt`. */
export function ocrNames(uploadName: string): { pdf: string; text: string } {
  const base = baseName(uploadName).replace(/\.(png|jpe?g|tiff?|webp|bmp)$/i, '');
  return {
    pdf: `${base === '' ? FALLBACK : base}.ocr.pdf`,
    text: `${base === '' ? FALLBACK : base}.ocr.txt`,
  };
}

/** Images to PDF (openapi.yaml `imagesToPdf`): the first image's name, `scan-1.jpg` -> `scan-1.pdf`. */
export function imagesPdfName(firstUploadName: string): string {
  const base = baseName(firstUploadName).replace(/\.(png|jpe?g|tiff?|webp|bmp|jp2|j2k|jpf|jpx)$/i, '');
  return `${base === '' ? FALLBACK : base}.pdf`;
}

/** PDF to images (openapi.yaml `pdfToImages`): `report.pdf`, page 2 -> `report.page-2.png`. */
export function pageImageName(uploadName: string, page: number, extension: 'png' | 'jpg'): string {
  return `${baseName(uploadName)}.page-${page}.${extension}`;
}

/** PDF to images with `output=zip`: `report.pdf` -> `report.pages.zip`. */
export function pagesZipName(uploadName: string): string {
  return `${baseName(uploadName)}.pages.zip`;
}

/** HTML to PDF (openapi.yaml `htmlToPdf`): the page's name, `report.html` -> `report.pdf`. */
export function htmlPdfName(uploadName: string): string {
  const base = baseName(uploadName).replace(/\.x?html?$/i, '');
  return `${base === '' ? FALLBACK : base}.pdf`;
}

/** Office to PDF (openapi.yaml `officeToPdf`): `report.docx` -> `report.pdf`. */
export function officePdfName(uploadName: string): string {
  const base = baseName(uploadName).replace(/\.(docx?|odt|rtf|xlsx?|ods|pptx?|odp)$/i, '');
  return `${base === '' ? FALLBACK : base}.pdf`;
}

export function partName(uploadName: string, pages: string): string {
  return `${baseName(uploadName)}.pages-${pages}.pdf`;
}
