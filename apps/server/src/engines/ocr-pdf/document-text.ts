// The text answer of `ocrPdf` (openapi.yaml `text_download`): every page's recognised text, pages
// separated by a form feed, a skipped page an empty page, so page N of the text is page N of the PDF.
import { open } from 'node:fs/promises';

/** tesseract ends each page of its text output with a form feed (its page_separator). */
export function pageText(tesseractText: string): string {
  return tesseractText.endsWith('\f') ? tesseractText.slice(0, -1) : tesseractText;
}

/**
 * Writes the document's text to `path`, one page at a time (a 5000-page text never sits in memory
 * whole). `textOf` answers a page's text, or undefined for a page that was not read.
 */
export async function writeDocumentText(
  path: string,
  pageCount: number,
  textOf: (page: number) => Promise<string | undefined>,
): Promise<void> {
  const file = await open(path, 'w');
  try {
    for (let page = 1; page <= pageCount; page += 1) {
      const text = (await textOf(page)) ?? '';
      await file.write(page === 1 ? text : `\f${text}`);
    }
  } finally {
    await file.close();
  }
}
