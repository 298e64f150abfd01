import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedFontPdf, infoIsPageTreePdf, photoPdf, textPdf, writeFixture } from '@pdn/fixtures';
import { PDFDocument, PDFName, PDFString } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repairNumbers } from '../../pdf/qpdf-json.js';
import { detectTools } from '../../tools.js';
import { holdsNoStructure, type PdfStructure, parseStructure, readStructure } from './pdf-structure.js';

const { qpdf } = await detectTools();
if (qpdf === undefined) console.warn('qpdf is not installed: the structure reader tests are skipped');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-structure-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const none: PdfStructure = {
  fields: [],
  annotations: [],
  attachments: [],
  outlines: [],
  compositeFonts: false,
  infoIsPageTree: false,
};

describe('holdsNoStructure', () => {
  const blank = { ...none, annotations: [[], []], pageSides: [612, 612], streams: [[], []] };
  // [name, { given: a structure, want: whether a rewrite could drop nothing of it }]
  const table: [string, { given: PdfStructure; want: boolean }][] = [
    ['pages only', { given: blank, want: true }],
    ['a link on page 2', { given: { ...blank, annotations: [[], ['/Link']] }, want: false }],
    ['a form field', { given: { ...blank, fields: ['name = null'] }, want: false }],
    ['an attachment', { given: { ...blank, attachments: ['a.txt'] }, want: false }],
    ['an outline', { given: { ...blank, outlines: ['Chapter 1'] }, want: false }],
  ];
  it.each(table)('%s', (_name, { given, want }) => expect(holdsNoStructure(given)).toBe(want));
});

describe('repairNumbers', () => {
  // [qpdf's JSON, valid JSON]
  const table: [string, string][] = [
    ['[0, 612.5, -3]', '[0, 612.5, -3]'],
    ['[-0., .5, -.25, 5.]', '[-0.0, 0.5, -0.25, 5.0]'],
    ['{"u:version 5. and .5": -0.}', '{"u:version 5. and .5": -0.0}'],
    ['["escaped \\" quote 1.", 1.]', '["escaped \\" quote 1.", 1.0]'],
  ];
  it.each(table)('%s -> %s', (given, want) => {
    expect(repairNumbers(given)).toBe(want);
    expect(() => JSON.parse(want)).not.toThrow();
  });
});

describe('parseStructure', () => {
  // [name, { given: qpdf's JSON (format 2), want: part of the structure }]
  const table: [string, { given: unknown; want: Partial<PdfStructure> }][] = [
    ['nothing', { given: {}, want: none }],
    [
      'annotations by page, through an indirect /Annots array and direct dictionaries',
      {
        given: {
          pages: [{ object: '1 0 R' }, { object: '2 0 R' }],
          qpdf: [
            {},
            {
              'obj:1 0 R': { value: { '/Annots': '3 0 R' } },
              'obj:2 0 R': { value: { '/Annots': [{ '/Subtype': '/Text' }] } },
              'obj:3 0 R': { value: ['4 0 R', '5 0 R'] },
              'obj:4 0 R': { value: { '/Subtype': '/Link' } },
              'obj:5 0 R': { stream: { dict: { '/Subtype': '/Widget' } } },
            },
          ],
        },
        want: { annotations: [['/Link', '/Widget'], ['/Text']] },
      },
    ],
    [
      'fields with their values, attachments, nested outline titles',
      {
        given: {
          acroform: {
            fields: [
              { fullname: 'First Name', value: 'u:Alice' },
              { fullname: 'gdpr', value: '/Off' },
            ],
          },
          attachments: { 'foo.txt': { preferredname: 'foo.txt' } },
          outlines: [
            { title: 'One', kids: [{ title: 'One.1', kids: [] }] },
            { title: 'Two', kids: [] },
          ],
        },
        want: {
          fields: ['First Name = "u:Alice"', 'gdpr = "/Off"'],
          attachments: ['foo.txt'],
          outlines: ['One', 'One.1', 'Two'],
        },
      },
    ],
    [
      'a composite font',
      {
        given: { qpdf: [{}, { 'obj:9 0 R': { value: { '/Subtype': '/Type0' } } }] },
        want: { compositeFonts: true },
      },
    ],
    [
      "a trailer /Info that is the catalog's /Pages",
      {
        given: {
          qpdf: [
            {},
            {
              trailer: { value: { '/Info': '2 0 R', '/Root': '1 0 R' } },
              'obj:1 0 R': { value: { '/Type': '/Catalog', '/Pages': '2 0 R' } },
              'obj:2 0 R': { value: { '/Type': '/Pages', '/Kids': [], '/Count': 0 } },
            },
          ],
        },
        want: { infoIsPageTree: true },
      },
    ],
    [
      'a trailer /Info of its own',
      {
        given: {
          qpdf: [
            {},
            {
              trailer: { value: { '/Info': '3 0 R', '/Root': '1 0 R' } },
              'obj:1 0 R': { value: { '/Type': '/Catalog', '/Pages': '2 0 R' } },
            },
          ],
        },
        want: { infoIsPageTree: false },
      },
    ],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    expect(parseStructure(JSON.stringify(given))).toMatchObject(want);
  });
});

/** A one-page PDF with a filled-in field, a note, an attached file and a bookmark, written by pdf-lib. */
async function structuredPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 300]);
  const field = doc.getForm().createTextField('name');
  field.setText('Alice');
  field.addToPage(page, { x: 20, y: 200, width: 200, height: 30 });
  const note = doc.context.register(
    doc.context.obj({
      Type: 'Annot',
      Subtype: 'Text',
      Rect: [20, 20, 40, 40],
      Contents: PDFString.of('a note'),
    }),
  );
  page.node.addAnnot(note);
  await doc.attach(new TextEncoder().encode('hello'), 'notes.txt', { mimeType: 'text/plain' });
  const outlines = doc.context.nextRef();
  const item = doc.context.register(
    doc.context.obj({ Title: PDFString.of('Chapter 1'), Parent: outlines, Dest: [page.ref, 'Fit'] }),
  );
  doc.context.assign(outlines, doc.context.obj({ Type: 'Outlines', First: item, Last: item, Count: 1 }));
  doc.catalog.set(PDFName.of('Outlines'), outlines);
  return doc.save();
}

describe.skipIf(qpdf === undefined)('readStructure', () => {
  // [name, bytes, want]
  it.each([
    [
      'text in a standard font',
      () => textPdf({ pages: 2 }),
      { ...none, annotations: [[], []], pageSides: [792, 792] },
    ],
    ['photos', () => photoPdf({ pages: 1 }), { ...none, annotations: [[]], pageSides: [792] }],
    [
      'an embedded TrueType font (pdf-lib writes it as Type0)',
      () => embeddedFontPdf({ pages: 1 }),
      { ...none, annotations: [[]], compositeFonts: true, pageSides: [792] },
    ],
    [
      'a form, a note, an attachment and a bookmark',
      structuredPdf,
      {
        fields: ['name = "u:Alice"'],
        annotations: [['/Widget', '/Text']],
        attachments: ['notes.txt'],
        outlines: ['Chapter 1'],
        compositeFonts: false,
        infoIsPageTree: false,
        pageSides: [300],
      },
    ],
  ] as const)('%s', { timeout: 60_000 }, async (name, bytes, want) => {
    const path = await writeFixture(dir, `${name.replaceAll(/\W/g, '-')}.pdf`, await bytes());
    const cwd = await mkdtemp(join(dir, 'job-'));
    if (qpdf === undefined) return;
    expect(await readStructure(path, 'input', { qpdf, cwd, timeoutMs: 60_000 })).toEqual({
      value: { ...want, streams: want.pageSides.map(() => expect.any(Array)) },
    });
  });

  it("says when the trailer's /Info is the page tree", { timeout: 60_000 }, async () => {
    const path = await writeFixture(dir, 'info-is-page-tree.pdf', await infoIsPageTreePdf());
    const cwd = await mkdtemp(join(dir, 'job-'));
    if (qpdf === undefined) return;
    const read = await readStructure(path, 'input', { qpdf, cwd, timeoutMs: 60_000 });
    expect(read).toMatchObject({ value: { infoIsPageTree: true } });
  });

  it('lists the streams each page draws from, as they are stored', { timeout: 60_000 }, async () => {
    const path = await writeFixture(
      dir,
      'photo-streams.pdf',
      await photoPdf({ pages: 2, width: 300, height: 200 }),
    );
    const cwd = await mkdtemp(join(dir, 'job-'));
    if (qpdf === undefined) return;
    const read = await readStructure(path, 'input', { qpdf, cwd, timeoutMs: 60_000 });
    const page = [
      {
        at: 'contents 0',
        object: expect.stringMatching(/^\d+ \d+$/),
        filters: expect.any(String),
        length: expect.any(Number),
      },
      {
        at: expect.stringMatching(/^\//),
        object: expect.stringMatching(/^\d+ \d+$/),
        filters: '"/DCTDecode"',
        length: expect.any(Number),
        pixels: '300x200',
      },
    ];
    expect(read).toEqual({ value: expect.objectContaining({ streams: [page, page] }) });
  });

  it('reads the fields of a form whose widgets no /AcroForm lists from its widgets', {
    timeout: 60_000,
  }, async () => {
    // qpdf 11.3 exits 2 listing such a form ("operation for dictionary attempted on object of type null").
    const doc = await PDFDocument.create();
    const page = doc.addPage([300, 200]);
    const field = doc.getForm().createTextField('name');
    field.setText('Alice');
    field.addToPage(page, { x: 20, y: 100, width: 200, height: 30 });
    await doc.save();
    doc.catalog.delete(PDFName.of('AcroForm'));
    const bytes = await doc.save({ updateFieldAppearances: false });
    const path = await writeFixture(dir, 'widgets-without-acroform.pdf', bytes);
    const cwd = await mkdtemp(join(dir, 'job-'));
    if (qpdf === undefined) return;
    const read = await readStructure(path, 'input', { qpdf, cwd, timeoutMs: 60_000 });
    expect(read).toEqual({
      value: expect.objectContaining({ fields: ['name = "u:Alice"'], annotations: [['/Widget']] }),
    });
  });

  it('says why when qpdf cannot read the file', async () => {
    const path = await writeFixture(dir, 'not-a-pdf.pdf', new TextEncoder().encode('hello'));
    const cwd = await mkdtemp(join(dir, 'job-'));
    if (qpdf === undefined) return;
    expect(await readStructure(path, 'input', { qpdf, cwd, timeoutMs: 60_000 })).toEqual({
      failure: expect.stringMatching(/^qpdf could not read its structure \(exit 2\)/),
    });
  });
});
