// Names of output files, derived from what the client called its upload (openapi.yaml: compress
// `report.pdf` -> `report.compressed.pdf`, split `<name>.pages-3-5.pdf`, merge `merged.pdf`).
// The upload's name is only ever text here, never a path: separators and control characters go.
const FALLBACK = 'document';
const MAX_LENGTH = 100;

export function baseName(uploadName: string): string {
  const lastSegment = uploadName.split(/[/\\]/).pop() ?? '';
  const cleaned = lastSegment
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point.
    .replace(/[\u0000-\u001f\u007f"]/g, '')
    .replace(/\.pdf$/i, '')
    .trim()
    .slice(0, MAX_LENGTH);
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

export function partName(uploadName: string, pages: string): string {
  return `${baseName(uploadName)}.pages-${pages}.pdf`;
}
