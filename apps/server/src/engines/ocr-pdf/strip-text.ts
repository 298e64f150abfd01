// A PDF with text taken out of its pages and of every form they draw (`mode=redo` with the
// native tools, given one page at a time; content-text.ts says which text). An earlier OCR layer is often a form:
// OCRmyPDF grafts its layer as one, and qpdf's overlay (this engine's own) does too. A form is read from
// render mode 0 and sets its own: both OCRmyPDF's layer and tesseract's set `3 Tr` inside it.
// The streams are inflated here, so a page's are read against a budget: a deflate bomb (479 KB of Flate
// inflating to 300 MB) is refused as soon as it passes the budget, never inflated whole. This runs in the
// pdf-lib worker thread (../pdf/pdf-lib-tasks.ts), never on the main thread.
import { readFile, writeFile } from 'node:fs/promises';
import {
  decodePDFRawStream,
  PDFArray,
  type PDFContext,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFRawStream,
  PDFRef,
  PDFStream,
} from 'pdf-lib';
import { InvalidInputError } from '../../errors.js';
import { type TextToRemove, withoutText } from './content-text.js';

/**
 * The most a page's content streams and forms may inflate to, together. Real pages' drawing
 * instructions are KBs, a few MB for dense vector drawings; the budget is far above them.
 */
export const MAX_PAGE_CONTENT_BYTES = 64 * 2 ** 20;
const CHUNK_BYTES = 2 ** 20;

/** What is left of a page's budget of inflated bytes; `name` says which page, for the message. */
interface DecodeBudget {
  left: number;
  name: string;
}

/** The stream inflated a chunk at a time, refused once the page's inflated bytes pass the budget. */
function decoded(stream: PDFStream, budget: DecodeBudget): string {
  if (!(stream instanceof PDFRawStream)) return Buffer.from(stream.getContents()).toString('latin1');
  const decoder = decodePDFRawStream(stream);
  const parts: string[] = [];
  for (let chunk = decoder.getBytes(CHUNK_BYTES); chunk.length > 0; chunk = decoder.getBytes(CHUNK_BYTES)) {
    budget.left -= chunk.length;
    if (budget.left < 0)
      throw new InvalidInputError(
        `${budget.name} draws with more than ${MAX_PAGE_CONTENT_BYTES / 2 ** 20} MiB of inflated content ` +
          '(a decompression bomb?): this server reads pages whose content inflates to less',
      );
    parts.push(Buffer.from(chunk).toString('latin1'));
  }
  return parts.join('');
}

/** The page's content streams, joined as a reader joins them (§7.8.2: one stream, split anywhere between tokens). */
function pageContent(context: PDFContext, contents: unknown, budget: DecodeBudget): string {
  const streams = contents instanceof PDFArray ? contents.asArray() : [contents];
  return streams
    .map((item) => context.lookup(item as PDFRef))
    .filter((item): item is PDFStream => item instanceof PDFStream)
    .map((stream) => decoded(stream, budget))
    .join('\n');
}

/** Every form reachable from `resources` rewritten in place, each once. */
function stripForms(
  context: PDFContext,
  resources: PDFDict | undefined,
  which: TextToRemove,
  seen: Set<string>,
  budget: DecodeBudget,
) {
  const xobjects = resources?.lookupMaybe(PDFName.of('XObject'), PDFDict);
  for (const value of xobjects?.values() ?? []) {
    if (!(value instanceof PDFRef) || seen.has(value.toString())) continue;
    seen.add(value.toString());
    const form = context.lookup(value);
    if (!(form instanceof PDFStream) || form.dict.get(PDFName.of('Subtype')) !== PDFName.of('Form')) continue;
    const rewritten = context.flateStream(Buffer.from(withoutText(decoded(form, budget), which), 'latin1'));
    for (const [key, entry] of form.dict.entries()) {
      if (!['Filter', 'DecodeParms', 'Length'].includes(key.decodeText())) rewritten.dict.set(key, entry);
    }
    context.assign(value, rewritten);
    stripForms(context, rewritten.dict.lookupMaybe(PDFName.of('Resources'), PDFDict), which, seen, budget);
  }
}

/**
 * Writes `pdf` (one page, `name` in messages) without the text `which` names into `output`; everything
 * else as it was. Rejects with InvalidInputError when the page's content inflates past the budget.
 */
export async function stripText(args: {
  pdf: string;
  which: TextToRemove;
  output: string;
  name: string;
}): Promise<void> {
  const doc = await PDFDocument.load(await readFile(args.pdf), { updateMetadata: false });
  const { context } = doc;
  const seen = new Set<string>();
  for (const { node: page } of doc.getPages()) {
    const budget = { left: MAX_PAGE_CONTENT_BYTES, name: args.name };
    const content = withoutText(pageContent(context, page.get(PDFName.of('Contents')), budget), args.which);
    page.set(PDFName.of('Contents'), context.register(context.flateStream(Buffer.from(content, 'latin1'))));
    stripForms(context, page.Resources(), args.which, seen, budget);
  }
  await writeFile(args.output, await doc.save({ useObjectStreams: false }));
}
