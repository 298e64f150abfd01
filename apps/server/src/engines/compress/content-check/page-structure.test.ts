import { photoPdf, textPdf } from '@pdn/fixtures';
import { PDFDocument, PDFName } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { type PageStructure, pageStructures, structureLoss } from './page-structure.js';

const page = (
  images: string[],
  textOperators: number | undefined,
  drawing = 'digest',
  annotations: string[] = [],
): PageStructure => ({ images, textOperators, drawing, annotations });

describe('pageStructures', () => {
  it('finds each page photo and caption', async () => {
    const doc = await PDFDocument.load(await photoPdf({ pages: 2, width: 300, height: 200 }));
    const drawing = expect.stringMatching(/^[0-9a-f]{40}$/);
    expect(pageStructures(doc)).toEqual([page(['300x200'], 1, drawing), page(['300x200'], 1, drawing)]);
  });

  it('counts text in Form XObjects too, once per form', async () => {
    const doc = await PDFDocument.create();
    const target = doc.addPage();
    const source = await PDFDocument.load(await textPdf({ pages: 1 }));
    const form = await doc.embedPage(source.getPage(0));
    target.drawPage(form);
    target.drawPage(form, { x: 10, y: 10 });
    // pdf-lib writes embedded pages when saving.
    const [structure] = pageStructures(await PDFDocument.load(await doc.save()));
    expect(structure?.images).toEqual([]);
    expect(structure?.textOperators).toBe(pageStructures(source)[0]?.textOperators);
  });

  it('reads a page whose content cannot be decoded as unknown text', async () => {
    const doc = await PDFDocument.create();
    const blank = doc.addPage();
    const broken = doc.context.flateStream('x');
    broken.dict.set(PDFName.of('Filter'), PDFName.of('NoSuchDecode'));
    blank.node.set(PDFName.of('Contents'), doc.context.register(broken));
    expect(pageStructures(doc)).toEqual([page([], undefined, expect.any(String))]);
  });
});

describe('structureLoss', () => {
  // [name, { given: input and output structures, want: the loss, or undefined when all survived }]
  const table: [string, { given: [PageStructure[], PageStructure[]]; want: RegExp | undefined }][] = [
    ['the same', { given: [[page(['10x10'], 3)], [page(['10x10'], 3)]], want: undefined }],
    ['more text in the output', { given: [[page([], 3)], [page([], 4)]], want: undefined }],
    [
      'an image gone',
      { given: [[page(['10x10', '20x5'], 1)], [page(['20x5'], 1)]], want: /page 1 lost a 10x10 image/ },
    ],
    [
      'one of two equal images gone',
      { given: [[page(['8x8', '8x8'], 0)], [page(['8x8'], 0)]], want: /lost a 8x8 image/ },
    ],
    ['an image resized', { given: [[page(['10x10'], 0)], [page(['5x5'], 0)]], want: /lost a 10x10 image/ }],
    [
      'text gone on page 2',
      {
        given: [
          [page([], 1), page([], 5)],
          [page([], 1), page([], 0)],
        ],
        want: /page 2 has 0 text-showing operators, the input 5/,
      },
    ],
    [
      'output text unreadable',
      { given: [[page([], 2)], [page([], undefined)]], want: /page 1 has unreadable/ },
    ],
    [
      'input text unreadable: nothing to compare',
      { given: [[page([], undefined)], [page([], 0)]], want: undefined },
    ],
    [
      'a stream it draws from changed',
      { given: [[page([], 1, 'a')], [page([], 1, 'b')]], want: /page 1 draws from streams that changed/ },
    ],
    [
      "a field's value changed",
      {
        given: [
          [page([], 0, 'a', ['/Link', '/Widget name = Alice'])],
          [page([], 0, 'a', ['/Link', '/Widget name = '])],
        ],
        want: /page 1 lost or changed an annotation: \/Widget name = Alice/,
      },
    ],
    [
      'an annotation more',
      { given: [[page([], 0, 'a', [])], [page([], 0, 'a', ['/Link'])]], want: undefined },
    ],
    [
      'a page missing',
      { given: [[page([], 0), page([], 0)], [page([], 0)]], want: /has 1 pages, the input 2/ },
    ],
  ];
  it.each(table)('%s', (_name, { given: [input, output], want }) => {
    const loss = structureLoss(input, output);
    if (want === undefined) expect(loss).toBeUndefined();
    else expect(loss).toMatch(want);
  });
});
