import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectTools } from '../tools.js';
import { qpdfLosslessPass } from './qpdf-pass.js';
import { qpdfPassFloorBytes } from './qpdf-pass-floor.js';

const { qpdf } = await detectTools();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-qpdf-pass-floor-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Random bytes: Flate cannot make them smaller, so qpdf's own compression of them is no floor. */
const DATA = randomBytes(4000);

type Placement = 'kept' | 'unreferenced' | 'metadata';
/** A stream's filter entry, as pdf-lib's `context.obj` takes it (a string is a name). */
type Filter = string | string[] | undefined;

/** A one-page PDF holding one stream of `data` under `filter`, where `placement` puts it. */
async function pdfWith(filter: Filter, data: Uint8Array, placement: Placement): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  const stream = PDFRawStream.of(doc.context.obj(filter === undefined ? {} : { Filter: filter }), data);
  const ref = doc.context.register(stream);
  if (placement === 'kept') doc.catalog.set(PDFName.of('PieceInfo'), doc.context.obj([ref]));
  if (placement === 'metadata') doc.catalog.set(PDFName.of('Metadata'), ref);
  return doc.save();
}

// [stream, { given: its filter, data and place, want: the floor in bytes }]
const table: [string, { given: [Filter, Uint8Array, Placement]; want: number }][] = [
  ['Flate, reachable', { given: ['FlateDecode', deflateSync(DATA), 'kept'], want: deflateSync(DATA).length }],
  ['DCT, reachable', { given: ['DCTDecode', DATA, 'kept'], want: DATA.length }],
  ['CCITT, abbreviated', { given: ['CCF', DATA, 'kept'], want: DATA.length }],
  // qpdf compresses a stream without a filter, and decodes and compresses again one whose filters are
  // an array, even of one: neither is copied as it is.
  ['without a filter', { given: [undefined, DATA, 'kept'], want: 0 }],
  ['Flate in an array', { given: [['FlateDecode'], deflateSync(DATA), 'kept'], want: 0 }],
  ['ASCIIHex', { given: ['ASCIIHexDecode', Buffer.from(DATA.toString('hex')), 'kept'], want: 0 }],
  // Not written by qpdf at all.
  ['Flate, referenced by nothing', { given: ['FlateDecode', deflateSync(DATA), 'unreferenced'], want: 0 }],
  // qpdf may write the document's metadata uncompressed.
  ['Flate, the catalog /Metadata', { given: ['FlateDecode', deflateSync(DATA), 'metadata'], want: 0 }],
];

describe('qpdfPassFloorBytes', () => {
  it.each(table)('%s', async (name, { given: [filter, data, placement], want }) => {
    const path = join(dir, `${name.replaceAll(/\W+/g, '-')}.pdf`);
    await writeFile(path, await pdfWith(filter, data, placement));
    const floor = await qpdfPassFloorBytes(path);
    expect(floor).toBe(want);
    // And it is a floor: qpdf's pass writes more than that.
    if (qpdf === undefined) return;
    const run = { qpdf, cwd: dir, timeoutMs: 30_000 };
    const pass = await qpdfLosslessPass(path, `${name.replaceAll(/\W+/g, '-')}-qpdf.pdf`, run);
    if (!('path' in pass)) throw new Error(pass.failure);
    expect((await stat(pass.path)).size).toBeGreaterThan(floor ?? 0);
  });

  it('knows no floor for a file it doubts', async () => {
    const whole = await pdfWith('FlateDecode', deflateSync(DATA), 'kept');
    const path = join(dir, 'cut-short.pdf');
    await writeFile(path, whole.subarray(0, whole.length - 200));
    expect(await qpdfPassFloorBytes(path)).toBeUndefined();
  });
});
