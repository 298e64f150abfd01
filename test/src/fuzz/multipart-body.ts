// Generated multipart bodies, as a small model that prints readably when
// fast-check reports a counterexample and is turned into bytes the same way every time: part names,
// file names (unicode, bidi and other controls, very long), odd or missing Content-Types, repeated and
// empty parts, boundaries that differ from the header's, bodies cut short.
import { createRandom } from '@pdn/fixtures';
import fc from 'fast-check';
import type { Operation } from './judge.js';

/** What a part holds; `pdf` and `image` are real files, so some bodies get all the way to a 200. */
export type Content =
  | { kind: 'pdf' | 'image' | 'empty' }
  | { kind: 'text'; text: string }
  | { kind: 'noise'; seed: number; length: number };

export interface PartModel {
  /** The `name` parameter; null leaves it out. */
  name: string | null;
  /** The `filename` parameter; null makes a text field. */
  filename: string | null;
  /** Send the name as RFC 5987 `filename*` too. */
  filenameStar: boolean;
  contentType: string | null;
  content: Content;
}

export interface BodyModel {
  operation: Operation;
  /** The boundary the body uses. */
  boundary: string;
  /** The Content-Type header: the body's boundary, another one, or none at all. */
  header: { kind: 'same' | 'missing' } | { kind: 'other'; boundary: string } | { kind: 'raw'; value: string };
  parts: PartModel[];
  newline: '\r\n' | '\n';
  /** Write the closing `--boundary--`. */
  closed: boolean;
  /** Keep only this many thousandths of the body. */
  keepPerMille: number;
}

export interface Fixtures {
  pdf: Uint8Array;
  image: Uint8Array;
}

/** The parts each operation declares (openapi.yaml requestBody), which the generator favours. */
const DECLARED: Readonly<Record<Operation, { files: string[]; fields: Record<string, string[]> }>> = {
  compress: { files: ['file'], fields: { level: ['low', 'medium', 'high', 'HIGH', ''] } },
  merge: { files: ['files[]'], fields: {} },
  split: { files: ['file'], fields: { ranges: ['1', '1-2', '2,1', '1-1,1', '0', ''] } },
  ocr: { files: ['image'], fields: { language: ['eng', 'eng+eng', 'xx', ''] } },
};

/** Characters that have fooled name handling before: controls, bidi, separators, quotes, paths. */
const TRICKY = [
  '\u202E',
  '\u2066',
  '\u200B',
  '\uFEFF',
  '\u2028',
  '\u0000',
  '\u0007',
  '\t',
  '\r',
  '\n',
  '"',
  "'",
  '\\',
  '/',
  '..',
  ';',
  '%22',
  '%00',
  '😀',
  '👩‍👩‍👧',
  'é',
  'e\u0301',
  'ﬁ',
  'ß',
  '中',
  'ي',
  '\u{10FFFF}',
  ' ',
  '.pdf',
  '.PDF',
];

const trickyText = (maxLength: number) =>
  fc.string({
    unit: fc.oneof(fc.constantFrom(...TRICKY), fc.string({ unit: 'binary', maxLength: 1 })),
    maxLength,
  });

export const filenameArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('a.pdf', 'report.PDF', '', '.pdf', '..', '../../etc/passwd', 'C:\\x\\y.pdf', 'a b.png'),
  trickyText(12),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  // Long names, with characters outside the BMP where the cut falls: output names keep the first 100
  // code points of the upload's name.
  fc
    .tuple(
      fc.integer({ min: 90, max: 110 }),
      fc.constantFrom('a', 'é', '中'),
      fc.string({
        unit: fc.constantFrom('😀', '\u202E', '中', 'a', 'e\u0301'),
        minLength: 1,
        maxLength: 300,
      }),
      fc.boolean(),
    )
    .map(([count, repeated, tail, pdf]) => `${repeated.repeat(count)}${tail}${pdf ? '.pdf' : ''}`),
);

const contentTypeArb = fc.oneof(
  fc.constantFrom(
    'application/pdf',
    'application/octet-stream',
    'image/png',
    'text/plain; charset=utf-8',
    'APPLICATION/PDF',
    '',
    'multipart/mixed; boundary=x',
  ),
  fc.string({ unit: 'binary-ascii', maxLength: 20 }),
);

const contentArb: fc.Arbitrary<Content> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<Content>({ kind: 'pdf' }, { kind: 'image' }) },
  fc.constant<Content>({ kind: 'empty' }),
  fc.record({ kind: fc.constant('text' as const), text: trickyText(20) }),
  fc.record({
    kind: fc.constant('noise' as const),
    seed: fc.nat(),
    length: fc.integer({ min: 1, max: 4096 }),
  }),
);

const nameArb = (operation: Operation): fc.Arbitrary<string | null> => {
  const declared = DECLARED[operation];
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...declared.files, ...Object.keys(declared.fields)) },
    fc.constantFrom('file', 'files[]', 'image', 'ranges', 'level', 'language', 'files', 'FILE', ''),
    fc.constant(null),
    trickyText(10),
  );
};

const partArb = (operation: Operation): fc.Arbitrary<PartModel> =>
  fc.record({
    name: nameArb(operation),
    filename: fc.oneof({ weight: 3, arbitrary: filenameArb }, fc.constant(null)),
    filenameStar: fc.boolean(),
    contentType: fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, contentTypeArb),
    content: contentArb,
  });

/** The parts a well-formed request of `operation` needs, so that bodies often get past the parser. */
const wellFormedParts = (operation: Operation): fc.Arbitrary<PartModel[]> => {
  const declared = DECLARED[operation];
  const file = (name: string): fc.Arbitrary<PartModel> =>
    fc.record({
      name: fc.constant(name),
      filename: filenameArb,
      filenameStar: fc.boolean(),
      contentType: fc.oneof(fc.constant(null), fc.constant('application/octet-stream')),
      content: fc.constant<Content>({ kind: operation === 'ocr' ? 'image' : 'pdf' }),
    });
  const fields = Object.entries(declared.fields).map(([name, values]) =>
    fc.record({
      name: fc.constant(name),
      filename: fc.constant(null),
      filenameStar: fc.constant(false),
      contentType: fc.constant(null),
      content: fc.constantFrom(...values).map((text): Content => ({ kind: 'text', text })),
    }),
  );
  const files = operation === 'merge' ? [file('files[]'), file('files[]')] : declared.files.map(file);
  return fc.tuple(...files, ...fields);
};

const boundaryArb = fc.oneof(
  fc.stringMatching(/^[0-9A-Za-z'()+_,./:=?-]{1,70}$/),
  fc.constantFrom('x', '----WebKitFormBoundary7MA4YWxkTrZu0gW', 'a b', '"quoted"', '--', 'é'),
);

export const bodyArb = (operation: Operation): fc.Arbitrary<BodyModel> =>
  fc.record({
    operation: fc.constant(operation),
    boundary: boundaryArb,
    header: fc.oneof(
      { weight: 8, arbitrary: fc.constant({ kind: 'same' as const }) },
      fc.constant({ kind: 'missing' as const }),
      fc.record({ kind: fc.constant('other' as const), boundary: boundaryArb }),
      fc.record({
        kind: fc.constant('raw' as const),
        value: fc.constantFrom(
          'multipart/form-data',
          'multipart/form-data; boundary=',
          'multipart/form-data; boundary="unterminated',
          'MULTIPART/FORM-DATA; BOUNDARY=x',
          'multipart/mixed; boundary=x',
          'application/x-www-form-urlencoded',
          'text/plain',
        ),
      }),
    ),
    parts: fc.oneof(
      { weight: 2, arbitrary: wellFormedParts(operation) },
      fc
        .tuple(wellFormedParts(operation), fc.array(partArb(operation), { maxLength: 4 }))
        .chain(([good, extra]) => fc.shuffledSubarray([...good, ...extra], { minLength: 0 })),
      fc.array(partArb(operation), { maxLength: 6 }),
    ),
    newline: fc.constantFrom<'\r\n' | '\n'>('\r\n', '\r\n', '\r\n', '\n'),
    closed: fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, fc.constant(false)),
    keepPerMille: fc.oneof({ weight: 8, arbitrary: fc.constant(1000) }, fc.integer({ min: 0, max: 999 })),
  });

function contentBytes(content: Content, fixtures: Fixtures): Uint8Array {
  switch (content.kind) {
    case 'pdf':
      return fixtures.pdf;
    case 'image':
      return fixtures.image;
    case 'empty':
      return new Uint8Array(0);
    case 'text':
      return Buffer.from(content.text, 'utf8');
    case 'noise': {
      const random = createRandom(content.seed);
      return new Uint8Array(content.length).map(() => random.int(256));
    }
  }
}

function partHead(part: PartModel, newline: string): string {
  let disposition = 'Content-Disposition: form-data';
  if (part.name !== null) disposition += `; name="${part.name}"`;
  if (part.filename !== null) disposition += `; filename="${part.filename}"`;
  if (part.filename !== null && part.filenameStar) {
    disposition += `; filename*=UTF-8''${encodeURIComponent(part.filename.replace(/\p{Cs}/gu, '\uFFFD'))}`;
  }
  const type = part.contentType === null ? '' : `${newline}Content-Type: ${part.contentType}`;
  return `${disposition}${type}${newline}${newline}`;
}

/** The request's Content-Type header (undefined: none) and body bytes. */
export function buildBody(
  model: BodyModel,
  fixtures: Fixtures,
): { contentType: string | undefined; body: Buffer } {
  const nl = model.newline;
  const chunks: Buffer[] = [];
  for (const part of model.parts) {
    chunks.push(Buffer.from(`--${model.boundary}${nl}${partHead(part, nl)}`, 'utf8'));
    chunks.push(Buffer.from(contentBytes(part.content, fixtures)));
    chunks.push(Buffer.from(nl));
  }
  if (model.closed) chunks.push(Buffer.from(`--${model.boundary}--${nl}`, 'utf8'));
  const whole = Buffer.concat(chunks);
  const body = whole.subarray(0, Math.floor((whole.length * model.keepPerMille) / 1000));
  const header = model.header;
  const contentType =
    header.kind === 'same'
      ? `multipart/form-data; boundary=${model.boundary}`
      : header.kind === 'other'
        ? `multipart/form-data; boundary=${header.boundary}`
        : header.kind === 'raw'
          ? header.value
          : undefined;
  return { contentType, body };
}
