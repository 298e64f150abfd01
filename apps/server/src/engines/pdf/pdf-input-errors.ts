// What a person is told when an uploaded PDF cannot be used ("each is `400 invalid_input`
// with a message a person can act on (for merge, naming which file)"). qpdf and pdf-lib reach the same
// verdicts by different means; both word them here so the two engines answer alike.
import { InvalidInputError } from '../../errors.js';

export function emptyFile(label: string): InvalidInputError {
  return new InvalidInputError(`${label} is empty (0 bytes). Upload the PDF again.`);
}

export function notAPdf(label: string): InvalidInputError {
  return new InvalidInputError(`${label} is not a PDF: it does not start with a %PDF- header.`);
}

/** Text before `%PDF-` (pdf-header.ts): Ghostscript would run it as a PostScript program. */
export function textBeforeHeader(label: string, postscript: boolean): InvalidInputError {
  const what = postscript ? 'PostScript (%!)' : 'text';
  return new InvalidInputError(
    `${label} is not a plain PDF: it has ${what} before its %PDF- header, and only PDF is accepted. ` +
      'Save it as a PDF and upload that.',
  );
}

export function encryptedWithPassword(label: string): InvalidInputError {
  return new InvalidInputError(
    `${label} is encrypted with a password. Remove the password and upload it again.`,
  );
}

/** pdf-lib cannot decrypt at all, so it also refuses files that open without a password. */
export function encrypted(label: string): InvalidInputError {
  return new InvalidInputError(
    `${label} is encrypted, and this server cannot read encrypted PDFs. Save an unencrypted copy and upload that.`,
  );
}

export function damaged(label: string): InvalidInputError {
  return new InvalidInputError(
    `${label} is damaged or truncated and cannot be read as a PDF. Check that the whole file was uploaded.`,
  );
}

export function pageTreeTooDeep(label: string): InvalidInputError {
  return new InvalidInputError(
    `${label} cannot be read: its page tree is nested too deeply. Re-save it with a PDF tool and try again.`,
  );
}

/** A /Kids entry leads back to a node above it; readers either loop or drop pages. */
export function pageTreeLoop(label: string): InvalidInputError {
  return new InvalidInputError(
    `${label} cannot be read: its page tree has a loop (a page list contains itself). Re-save it with a PDF tool and try again.`,
  );
}

/** qpdf crashed on the file (it segfaults on a page tree nested 20,000 deep, measured with qpdf 11.3). */
export function unprocessable(label: string): InvalidInputError {
  return new InvalidInputError(
    `${label} cannot be processed: its structure is nested too deeply or is damaged. Re-save it with a PDF tool and try again.`,
  );
}

/** Zero pages and the per-document page cap ("refuse more before doing any work"). */
export function checkPageCount(label: string, pageCount: number, maxPages: number): void {
  if (pageCount === 0) throw new InvalidInputError(`${label} has no pages.`);
  if (pageCount > maxPages) {
    throw new InvalidInputError(
      `${label} has ${pageCount} pages; this server accepts at most ${maxPages} pages per document.`,
    );
  }
}
