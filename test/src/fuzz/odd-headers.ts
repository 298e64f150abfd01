// Generated requests with odd headers, written on a raw socket because no
// HTTP client will send them: Content-Length that lies or is not a number, Transfer-Encoding variants
// (chunked with odd chunk sizes, unknown codings, both framings at once), Expect variants, Content-Type
// variants and Authorization variants. The body is a well-formed multipart request or a generated one.
import fc from 'fast-check';
import type { Operation } from './judge.js';
import { type BodyModel, bodyArb } from './multipart-body.js';

export type Authorization =
  | { kind: 'key'; scheme: string; gap: string; trailing: string }
  | { kind: 'raw'; value: string }
  | { kind: 'missing' }
  | { kind: 'twice' };

export type ContentLength =
  | { kind: 'honest' | 'missing' }
  | { kind: 'off'; by: number }
  | { kind: 'raw'; value: string }
  | { kind: 'twice'; by: number };

export type Framing =
  | { kind: 'length'; contentLength: ContentLength }
  | {
      kind: 'chunked';
      coding: string;
      chunk: number;
      sizeStyle: 'plain' | 'upper' | 'padded' | 'extension' | 'lie';
      contentLength: boolean;
    };

export interface RequestModel {
  operation: Operation;
  body: BodyModel;
  framing: Framing;
  expect: string | null;
  /** Replaces the body's own Content-Type when set. */
  contentType: string | null;
  authorization: Authorization;
  host: boolean;
}

const authorizationArb: fc.Arbitrary<Authorization> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constant<Authorization>({ kind: 'key', scheme: 'Bearer', gap: ' ', trailing: '' }),
  },
  fc.record({
    kind: fc.constant('key' as const),
    scheme: fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic', 'Token', ''),
    gap: fc.constantFrom(' ', '  ', '\t', ''),
    trailing: fc.constantFrom('', ' ', 'x', '0', '\t'),
  }),
  fc.record({
    kind: fc.constant('raw' as const),
    value: fc.oneof(
      fc.constantFrom(
        'Bearer',
        'Bearer ',
        'Bearer pdn_live_',
        'Bearer pdn_live_00000000000000000000000000000000',
        'Bearer pdn_test_ffffffffffffffffffffffffffffffff',
        'Bearer pdn_live_0123456789ABCDEF0123456789ABCDEF',
        'Basic dXNlcjpwYXNz',
        'Bearer pdn_live_é',
      ),
      fc.string({ unit: 'binary-ascii', maxLength: 60 }).map((value) => `Bearer ${value}`),
    ),
  }),
  fc.constant<Authorization>({ kind: 'missing' }),
  fc.constant<Authorization>({ kind: 'twice' }),
);

const contentLengthArb: fc.Arbitrary<ContentLength> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<ContentLength>({ kind: 'honest' }) },
  fc.constant<ContentLength>({ kind: 'missing' }),
  fc.record({ kind: fc.constant('off' as const), by: fc.integer({ min: -5000, max: 5000 }) }),
  fc.record({
    kind: fc.constant('raw' as const),
    value: fc.constantFrom('-1', 'abc', '1e3', ' 10', '0x10', '99999999999999999999', '', '+5', '1,1'),
  }),
  fc.record({ kind: fc.constant('twice' as const), by: fc.integer({ min: 0, max: 10 }) }),
);

const framingArb: fc.Arbitrary<Framing> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('length' as const), contentLength: contentLengthArb }),
  },
  fc.record({
    kind: fc.constant('chunked' as const),
    coding: fc.constantFrom(
      'chunked',
      'Chunked',
      'gzip, chunked',
      'chunked, gzip',
      'identity',
      'xchunked',
      'chunked, chunked',
    ),
    chunk: fc.integer({ min: 1, max: 70_000 }),
    sizeStyle: fc.constantFrom('plain', 'plain', 'upper', 'padded', 'extension', 'lie'),
    contentLength: fc.boolean(),
  }),
);

export const requestArb = (operation: Operation): fc.Arbitrary<RequestModel> =>
  fc.record({
    operation: fc.constant(operation),
    body: bodyArb(operation),
    framing: framingArb,
    expect: fc.oneof(
      { weight: 4, arbitrary: fc.constant(null) },
      fc.constantFrom('100-continue', '100-Continue', 'foo', '', '100-continue, foo', '200-ok'),
    ),
    contentType: fc.oneof(
      { weight: 4, arbitrary: fc.constant(null) },
      fc.constantFrom(
        'multipart/form-data; boundary=x; boundary=y',
        'multipart/form-data;boundary=x',
        'multipart/form-data; charset=utf-8',
        'multipart/form-data, boundary=x',
        'Multipart/Form-Data',
        'application/pdf',
        '*/*',
      ),
    ),
    authorization: authorizationArb,
    host: fc.oneof({ weight: 8, arbitrary: fc.constant(true) }, fc.constant(false)),
  });

function authorizationLines(auth: Authorization, key: string): string[] {
  switch (auth.kind) {
    case 'key':
      return [`Authorization: ${auth.scheme}${auth.gap}${key}${auth.trailing}`];
    case 'raw':
      return [`Authorization: ${auth.value}`];
    case 'missing':
      return [];
    case 'twice':
      return [`Authorization: Bearer ${key}`, `Authorization: Bearer ${key}`];
  }
}

function chunked(body: Buffer, framing: Extract<Framing, { kind: 'chunked' }>): Buffer {
  const chunks: Buffer[] = [];
  for (let at = 0; at < body.length; at += framing.chunk) {
    const piece = body.subarray(at, at + framing.chunk);
    const hex = piece.length.toString(16);
    const size =
      framing.sizeStyle === 'upper'
        ? hex.toUpperCase()
        : framing.sizeStyle === 'padded'
          ? hex.padStart(8, '0')
          : framing.sizeStyle === 'extension'
            ? `${hex};name=value`
            : framing.sizeStyle === 'lie'
              ? (piece.length + 3).toString(16)
              : hex;
    chunks.push(Buffer.from(`${size}\r\n`), piece, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(chunks);
}

/** The request's bytes; `Connection: close` so the server ends the exchange once it has answered. */
export function requestBytes(
  model: RequestModel,
  body: Buffer,
  bodyType: string | undefined,
  key: string,
  host: string,
): Buffer {
  const lines = [`POST /api/v1/${model.operation} HTTP/1.1`, 'Connection: close'];
  if (model.host) lines.push(`Host: ${host}`);
  lines.push(...authorizationLines(model.authorization, key));
  const type = model.contentType ?? bodyType;
  if (type !== undefined) lines.push(`Content-Type: ${type}`);
  if (model.expect !== null) lines.push(`Expect: ${model.expect}`);
  let payload = body;
  const framing = model.framing;
  if (framing.kind === 'chunked') {
    lines.push(`Transfer-Encoding: ${framing.coding}`);
    if (framing.contentLength) lines.push(`Content-Length: ${body.length}`);
    payload = chunked(body, framing);
  } else {
    const length = framing.contentLength;
    if (length.kind === 'honest') lines.push(`Content-Length: ${body.length}`);
    if (length.kind === 'off') lines.push(`Content-Length: ${Math.max(0, body.length + length.by)}`);
    if (length.kind === 'raw') lines.push(`Content-Length: ${length.value}`);
    if (length.kind === 'twice')
      lines.push(`Content-Length: ${body.length}`, `Content-Length: ${body.length + length.by}`);
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
}
