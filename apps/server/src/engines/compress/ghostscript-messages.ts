// What Ghostscript's own messages say about a run. Ghostscript 10.00 exits 0 after "Couldn't initialise file
// ... No pages will be processed" and writes a blank page, so its exit code proves little; these messages are
// how it admits that content was lost. The PDF interpreters print them on stdout (pdf_main.ps
// `newpdf_pdfformaterror`, pdf_base.ps `pdfformaterror`), other parts on stderr: both are read. Everything
// else it prints (files it repaired) is a note worth logging only.

/** Ghostscript 10.00's phrases for "the output is missing something", as found in its Resource/Init
 * files (pdf_main.ps, pdf_draw.ps, pdf_ops.ps, pdf_base.ps) and libgs strings. Case is ignored. */
const FAILURE_PHRASES: readonly string[] = [
  // The family's common tail: "**** Error: Couldn't initialise file." / "Page drawing error occurred." /
  // "Couldn't get page info." / "File has unbalanced q/Q operators" / "... smooth shading object", each
  // followed by it.
  'output may be incorrect',
  // "No pages will be processed (FirstPage > LastPage)." after a file it could not open.
  'no pages will be processed',
  // "Could not draw this page at all, page will be missing in the output."
  'page will be missing',
  // "Error reading a content stream. The page may be incomplete."
  'page may be incomplete',
  'unrecoverable error',
];

/** Printed by every legacy-interpreter run; not a remark about the file. */
const LEGACY_BANNER = /^\s*\*+ Warning: You are using the legacy PDF interpreter.*$/gim;

export interface GhostscriptVerdict {
  /** The first line that admits a loss, when one does: the run's output must not be used. */
  failure: string | undefined;
  /** What else it printed (repairs, substitutions), trimmed; empty when it said nothing. */
  notes: string;
}

export function readGhostscriptMessages(output: string): GhostscriptVerdict {
  const notes = output.replace(LEGACY_BANNER, '').trim();
  const lines = notes.split('\n');
  const index = lines.findIndex((line) => {
    const lower = line.toLowerCase();
    return FAILURE_PHRASES.some((phrase) => lower.includes(phrase));
  });
  if (index === -1) return { failure: undefined, notes };
  // "Output may be incorrect" is the second line of a two-line message: name the first one too.
  const failure = lines
    .slice(Math.max(0, index - 1), index + 1)
    .map((line) => line.replace(/^[\s*]+/, '').trim())
    .filter((line) => line !== '')
    .join(' ');
  return { failure, notes };
}
