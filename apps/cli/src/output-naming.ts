// What each output file is called and where it goes: `<name>.compressed.pdf` next to the
// input or in DIR, one `<name>.pages-<range>.pdf` per split range, `<name>.txt` for OCR text.
// Pure functions: the caller looks at the file system and passes what it found.
import { basename, dirname, extname, join, sep } from 'node:path';
import { UsageError } from './errors.js';

/** The argument that means "standard input" as an input and "standard output" as `-o`. */
export const STDIO = '-';

export type OutputTarget =
  | { kind: 'beside' }
  | { kind: 'dir'; dir: string }
  | { kind: 'file'; path: string }
  | { kind: 'stdout' };

export interface TargetFacts {
  /** How many outputs the command will write. */
  outputCount: number;
  /** Whether `-o` names an existing directory. */
  isDirectory: boolean;
}

/**
 * What `-o` means for a command that writes one output per input: nothing is "next to each input";
 * `-` is stdout (one output only); an existing directory, a path ending in a separator, or any path
 * given for several outputs is a directory; otherwise it is the output file.
 */
export function outputTarget(option: string | undefined, facts: TargetFacts): OutputTarget {
  if (option === undefined) return { kind: 'beside' };
  if (option === STDIO) {
    if (facts.outputCount > 1) throw new UsageError('-o - writes one output to stdout; give one input');
    return { kind: 'stdout' };
  }
  if (facts.isDirectory || option.endsWith('/') || option.endsWith(sep) || facts.outputCount > 1) {
    return { kind: 'dir', dir: option };
  }
  return { kind: 'file', path: option };
}

/** Where an output named `name`, made from `input`, is written; `-` for stdout. */
export function outputPath(target: OutputTarget, input: string, name: string): string {
  switch (target.kind) {
    case 'beside':
      return input === STDIO ? name : join(dirname(input), name);
    case 'dir':
      return join(target.dir, name);
    case 'file':
      return target.path;
    case 'stdout':
      return STDIO;
  }
}

/** The input's file name without its last extension; stdin is called `stdin`. */
export function stem(input: string): string {
  if (input === STDIO) return 'stdin';
  const name = basename(input);
  const extension = extname(name);
  return extension === '' ? name : name.slice(0, -extension.length);
}

export function compressedName(input: string): string {
  return `${stem(input)}.compressed.pdf`;
}

/** Office to PDF: `report.docx` -> `report.pdf`. */
export function officePdfName(input: string): string {
  return `${stem(input)}.pdf`;
}

/** `pages` is the server's normalised range (`"3-5"`, `"7"`), so names match the parts reported. */
export function splitPartName(input: string, pages: string): string {
  return `${stem(input)}.pages-${pages}.pdf`;
}

/**
 * Whether a file is named like an output pdn writes for a PDF (`a.compressed.pdf`, `a.pages-2-5.pdf`),
 * so `pdn compress *.pdf` can leave last run's outputs out. Merge outputs are named by
 * the user and cannot be told apart.
 */
export function isOwnOutputName(input: string): boolean {
  return /\.(compressed|pages-\d+(-\d+)?)\.pdf$/i.test(basename(input));
}

export function ocrTextName(input: string): string {
  return `${stem(input)}.txt`;
}

/** `pdn ocr-pdf`: `scan.pdf` or `scan.png` -> `scan.ocr.pdf`, as the server names it. */
export function searchableName(input: string): string {
  return `${stem(input)}.ocr.pdf`;
}

/** Whether a file is named like `pdn ocr-pdf`'s output, so `pdn ocr-pdf *.pdf` can leave last run's out. */
export function isSearchableName(input: string): boolean {
  return /\.ocr\.pdf$/i.test(basename(input));
}

/** Where `--text` writes the text of the searchable PDF at `pdfPath`: `scan.ocr.pdf` -> `scan.ocr.txt`. */
export function textBeside(pdfPath: string): string {
  return `${pdfPath.replace(/\.pdf$/i, '')}.txt`;
}

/** Paths (other than stdout) that two or more outputs would share, so one would clobber another. */
export function sharedPaths(paths: readonly string[]): string[] {
  const seen = new Set<string>();
  const shared = new Set<string>();
  for (const path of paths) {
    if (path === STDIO) continue;
    if (seen.has(path)) shared.add(path);
    seen.add(path);
  }
  return [...shared];
}
