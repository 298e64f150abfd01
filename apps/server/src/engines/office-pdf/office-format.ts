// Which Office document an upload is, by its bytes (openapi.yaml `officeToPdf`): OOXML and ODF are ZIP
// packages told apart by the parts they hold (ECMA-376 Part 2; ODF 1.3 Part 2, 3.3 `mimetype`), Word,
// Excel and PowerPoint 97 are compound files told apart by their main stream, RTF is text that starts
// `{\rtf`. LibreOffice is then told the one import filter for that format: a file that is none of them
// never reaches any of its many other import filters, and a file of one format is never read by another
// format's filter on the strength of its name.
import { open } from 'node:fs/promises';
import type { OfficeFormat } from '@pdn/api-types';
import { InvalidInputError } from '../../errors.js';
import type { InputFile } from '../types.js';
import { type ByteSource, inMemory, onDisk, readSmallFile } from './byte-source.js';
import { CFB_SIGNATURE, NotACompoundFileError, readCfbNames } from './cfb-streams.js';
import { NotAZipError, readStoredEntry, readZipEntries, type ZipEntry } from './zip-entries.js';

/** LibreOffice's application for a format: which export filter writes its PDF. */
export type OfficeFamily = 'writer' | 'calc' | 'impress';

export interface RecognisedDocument {
  format: OfficeFormat;
  family: OfficeFamily;
  /** LibreOffice's import filter, by its internal name (filter/source/config/fragments/filters). */
  filter: string;
}

const FORMATS: Readonly<Record<OfficeFormat, Omit<RecognisedDocument, 'format'>>> = {
  docx: { family: 'writer', filter: 'MS Word 2007 XML' },
  doc: { family: 'writer', filter: 'MS Word 97' },
  odt: { family: 'writer', filter: 'writer8' },
  rtf: { family: 'writer', filter: 'Rich Text Format' },
  xlsx: { family: 'calc', filter: 'Calc MS Excel 2007 XML' },
  xls: { family: 'calc', filter: 'MS Excel 97' },
  ods: { family: 'calc', filter: 'calc8' },
  pptx: { family: 'impress', filter: 'Impress MS PowerPoint 2007 XML' },
  ppt: { family: 'impress', filter: 'MS PowerPoint 97' },
  odp: { family: 'impress', filter: 'impress8' },
};

/** More parts than any real document holds; a package listing more is refused before LibreOffice. */
const MAX_PARTS = 50_000;

const ZIP_SIGNATURE = Buffer.from('PK\x03\x04', 'latin1');
const RTF_SIGNATURE = Buffer.from('{\\rtf', 'latin1');

/** ODF's `mimetype`, the package's first part, stored (ODF 1.3 Part 2, 3.3). */
const ODF_TYPES: Readonly<Record<string, OfficeFormat>> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
};

/** The main part of each OOXML document, where every producer puts it. */
const OOXML_PARTS: ReadonlyArray<[string, OfficeFormat]> = [
  ['word/document.xml', 'docx'],
  ['xl/workbook.xml', 'xlsx'],
  ['ppt/presentation.xml', 'pptx'],
];

const CFB_STREAMS: ReadonlyArray<[string, OfficeFormat]> = [
  ['WordDocument', 'doc'],
  ['Workbook', 'xls'],
  ['Book', 'xls'],
  ['PowerPoint Document', 'ppt'],
];

async function packageFormat(
  entries: readonly ZipEntry[],
  readMimetype: (entry: ZipEntry) => Promise<string>,
) {
  const mimetype = entries.find((entry) => entry.name === 'mimetype');
  if (mimetype !== undefined) {
    const odf = ODF_TYPES[(await readMimetype(mimetype)).trim()];
    if (odf !== undefined) return odf;
  }
  const names = new Set(entries.map((entry) => entry.name));
  if (!names.has('[Content_Types].xml')) return undefined;
  return OOXML_PARTS.find(([part]) => names.has(part))?.[1];
}

const WHAT =
  'a Word, Excel or PowerPoint document (DOCX, DOC, XLSX, XLS, PPTX, PPT), an OpenDocument (ODT, ODS, ODP) or RTF';

/** The format of `input`, or InvalidInputError naming the file and what is taken. */
export async function recogniseDocument(input: InputFile): Promise<RecognisedDocument> {
  const { size, bytes } = readSmallFile(input.path);
  if (bytes !== undefined) return recognise(input, inMemory(bytes), size);
  const file = await open(input.path, 'r');
  try {
    return await recognise(input, onDisk(file), size);
  } finally {
    await file.close();
  }
}

async function recognise(input: InputFile, file: ByteSource, size: number): Promise<RecognisedDocument> {
  const head = await file.read(0, 8);
  let format: OfficeFormat | undefined;
  try {
    if (head.subarray(0, 4).equals(ZIP_SIGNATURE)) {
      const entries = await readZipEntries(file, size, MAX_PARTS);
      format = await packageFormat(entries, (entry) => readStoredEntry(file, entry, 128));
    } else if (head.equals(CFB_SIGNATURE)) {
      const names = new Set(await readCfbNames(file));
      format = CFB_STREAMS.find(([stream]) => names.has(stream))?.[1];
    } else if (head.subarray(0, 5).equals(RTF_SIGNATURE)) {
      format = 'rtf';
    }
  } catch (error) {
    if (error instanceof NotAZipError || error instanceof NotACompoundFileError)
      throw new InvalidInputError(
        `${input.label} could not be read as an Office document: ${error.message}.`,
      );
    throw error;
  }
  if (format === undefined) throw new InvalidInputError(`${input.label} is not ${WHAT} by its content.`);
  return { format, ...FORMATS[format] };
}
