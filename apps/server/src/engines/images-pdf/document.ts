// The PDF of images to PDF, begun and closed in the server: the header, then each image's fragment,
// which an OCR process appends (image-fragment.ts), then the page tree, the catalog and the
// cross-reference table. No upload's bytes are parsed or copied in the server's process.
import { appendFile, writeFile } from 'node:fs/promises';
import { type Fragment, PAGES_OBJECT } from './image-fragment.js';
import { ref, serialize, xrefAndTrailer } from './pdf-objects.js';

const CATALOG_OBJECT = 1;
/** The first number a fragment may use: 1 and 2 are the catalog and the page tree. */
const FIRST_FRAGMENT_OBJECT = 3;
/** PDF 1.7 (16-bit samples and JPXDecode need 1.5); the comment's high bytes mark the file as binary (7.5.2). */
const HEADER = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';

export class ImageDocument {
  readonly #offsets = new Map<number, number>();
  readonly #pages: number[] = [];
  #length = 0;
  #nextObject = FIRST_FRAGMENT_OBJECT;

  private constructor(private readonly path: string) {}

  static async create(path: string): Promise<ImageDocument> {
    const document = new ImageDocument(path);
    await writeFile(path, HEADER, 'latin1');
    document.#length = Buffer.byteLength(HEADER, 'latin1');
    return document;
  }

  /** Where the next fragment starts, and its first object number. */
  get next(): { base: number; firstObject: number } {
    return { base: this.#length, firstObject: this.#nextObject };
  }

  get pageCount(): number {
    return this.#pages.length;
  }

  /** Takes in the fragment an OCR process appended at `this.next`. */
  added(fragment: Fragment): void {
    for (const [num, offset] of fragment.offsets) this.#offsets.set(num, offset);
    this.#pages.push(...fragment.pages);
    this.#nextObject = fragment.nextObject;
    this.#length = fragment.end;
  }

  /** Writes the page tree, catalog and trailer; answers the file's size. */
  async close(): Promise<number> {
    const objects = [
      [PAGES_OBJECT, { Type: '/Pages', Kids: this.#pages.map(ref), Count: this.#pages.length }],
      [CATALOG_OBJECT, { Type: '/Catalog', Pages: ref(PAGES_OBJECT) }],
    ] as const;
    let tail = '';
    for (const [num, value] of objects) {
      this.#offsets.set(num, this.#length + Buffer.byteLength(tail, 'latin1'));
      tail += `${num} 0 obj\n${serialize(value)}\nendobj\n`;
    }
    const at = this.#length + Buffer.byteLength(tail, 'latin1');
    tail += xrefAndTrailer(this.#offsets, this.#nextObject, CATALOG_OBJECT, at);
    await appendFile(this.path, tail, 'latin1');
    this.#length += Buffer.byteLength(tail, 'latin1');
    return this.#length;
  }
}
