// Reading one operation's multipart body with formidable, straight to disk in the request's work
// folder. Every part is judged the moment its headers arrive: a part the operation does not declare,
// or a file where a field belongs (or the reverse), stops the parse with a 400 before any of its bytes
// are read (300 MiB in an unused part once cost 15.8 s of parsing before the 400).
// Every byte of the body counts toward the plan's limit, whatever part it is in; a part with a
// filename is a file, with or without a Content-Type (Python requests sends none). An empty text
// field reads as not sent (sentFields below).

import type { IncomingMessage } from 'node:http';
import formidable, { type Part } from 'formidable';
import type { UploadPace } from '../config.js';
import { InvalidInputError } from '../errors.js';
import type { UploadedFile } from './upload.js';
import { uploadFileStream } from './upload-file-stream.js';
import { watchPace } from './upload-pace.js';

/** The parts of one operation's multipart body, as its OpenAPI requestBody declares them. */
export interface PartsSpec {
  /** e.g. "POST /api/v1/merge takes 2 to 20 PDFs in the repeated part `files[]`" */
  summary: string;
  files: readonly string[];
  fields: readonly string[];
}

export interface ParsedParts {
  files: Map<string, UploadedFile[]>;
  fields: Map<string, string[]>;
}

export interface ParseOptions {
  /** The request's work folder: file parts are written here. */
  uploadDir: string;
  /** The plan's cap on the whole body, in bytes. */
  limit: number;
  /** The error to stop with once the body passes `limit`. */
  tooLarge: () => Error;
  /** The pace the body must keep (http/upload-pace.ts), judged from when the parse starts. */
  pace: UploadPace;
  /** The error to stop with once a window brings too little, given the bytes it brought. */
  tooSlow: (windowBytes: number) => Error;
  /** Aborted when the client goes away: the parse stops instead of waiting for bytes that never come. */
  signal: AbortSignal;
}

/** Far above any route's own count check (merge's 2-20), so that check gives the message, not this. */
const MAX_FILES = 64;
const MAX_FIELDS = 16;
const MAX_FIELDS_BYTES = 64 * 1024;

/** formidable's error codes (formidable/src/FormidableError.js) that we answer specially. */
const FIELDS_TOO_LARGE = 1006;
const TOO_MANY_FIELDS = 1007;
const TOO_MANY_FILES = 1015;

interface FormidableFailure {
  code: number;
  httpCode: number;
  message: string;
}

function isFormidableFailure(error: unknown): error is FormidableFailure {
  const candidate = error as Partial<FormidableFailure> | null;
  return (
    typeof candidate?.httpCode === 'number' && typeof candidate.code === 'number' && candidate.code >= 1000
  );
}

/**
 * Stops a parse in progress: formidable's own way to fail (`_error` in Formidable.js, which its
 * plugins call). The parse promise rejects with `error`, files already opened are destroyed, and later
 * bytes are no longer parsed. The types omit it, being underscored.
 */
function stopParse(form: ReturnType<typeof formidable>, error: Error): void {
  (form as unknown as { _error(error: Error): void })._error(error);
}

/**
 * A part with a filename is a file, with or without a Content-Type, and also
 * when formidable cannot read the name: its pattern stops at a U+2028 in it, and it ignores
 * `filename*` (RFC 6266).
 */
function hasFilename(part: Part): boolean {
  const disposition = (part as { headers?: Record<string, string> }).headers?.['content-disposition'] ?? '';
  return /;\s*filename\*?\s*=/i.test(disposition);
}

/** What is wrong with a part named `name` that is (or is not) a file, or undefined when it is wanted. */
function partProblem(spec: PartsSpec, name: string | null, isFile: boolean): string | undefined {
  const accepted = `${spec.summary}.`;
  if (name !== null && spec.files.includes(name)) {
    return isFile
      ? undefined
      : `The part \`${name}\` must be a file (a part with a filename), not a text field. ${accepted}`;
  }
  if (name !== null && spec.fields.includes(name)) {
    return isFile
      ? `The part \`${name}\` must be a text field (no filename), not a file. ${accepted}`
      : undefined;
  }
  return `Unexpected part \`${name || '(unnamed)'}\`. ${accepted}`;
}

/** formidable's refusals in the operation's terms; anything unforeseen is a malformed body. */
function translate(error: unknown, spec: PartsSpec, options: ParseOptions): unknown {
  if (!isFormidableFailure(error)) return error;
  const accepted = `${spec.summary}.`;
  // formidable says 413 for its text-field cap too; that is our fixed cap, not the plan's upload
  // limit, and text fields are small by nature: a client mistake.
  if (error.code === FIELDS_TOO_LARGE) {
    return new InvalidInputError(
      `The text fields may hold at most ${MAX_FIELDS_BYTES / 1024} KiB in all; this request sent more. ${accepted}`,
      { cause: error },
    );
  }
  // formidable stops at the first part over its count, so "more than" is all that is known.
  if (error.code === TOO_MANY_FILES) {
    return new InvalidInputError(`Too many files: more than ${MAX_FILES} file parts were sent. ${accepted}`, {
      cause: error,
    });
  }
  if (error.code === TOO_MANY_FIELDS) {
    return new InvalidInputError(`Too many text fields: more than ${MAX_FIELDS} were sent. ${accepted}`, {
      cause: error,
    });
  }
  if (error.httpCode === 413) return options.tooLarge();
  return new InvalidInputError(`The multipart body is malformed or incomplete. ${accepted}`, {
    cause: error,
  });
}

/** The hex digest formidable took of a file as it wrote it (its `hashAlgorithm` option). */
function sha256Of(file: formidable.File): string {
  if (typeof file.hash !== 'string') throw new Error(`formidable gave no hash for ${file.filepath}`);
  return file.hash;
}

/**
 * The text fields with a value. An empty one reads as not sent (openapi.yaml, "Upload limits"): HTML
 * forms, Swagger UI's "Try it out" and many clients send every field of a form, the empty ones too, and
 * `callback_url=` must mean "no callback", as `level=` means the default. Said once, here, so routes,
 * the Idempotency-Key fingerprint and stored jobs all see the same request; a required field sent
 * empty is then missing, and refused as such by the route.
 */
function sentFields(fields: formidable.Fields): Map<string, string[]> {
  const sent = new Map<string, string[]>();
  for (const [name, list] of Object.entries(fields)) {
    const values = (list ?? []).filter((value) => value !== '');
    if (values.length > 0) sent.set(name, values);
  }
  return sent;
}

/** Reads `req`'s multipart body into `options.uploadDir`; rejects with an ApiError on a bad body. */
export async function parseParts(
  req: IncomingMessage,
  spec: PartsSpec,
  options: ParseOptions,
): Promise<ParsedParts> {
  let filesNamed = 0;
  const form = formidable({
    uploadDir: options.uploadDir,
    // The request's folder is its own, so a count names its files apart; formidable's default, a
    // cuid2 per file (SHA-3 in JavaScript), cost a merge of 20 more than a millisecond.
    filename: () => `upload-${++filesNamed}`,
    // formidable's own caps (200 MiB by default) follow the plan; the body count below fires first.
    maxFileSize: options.limit,
    maxTotalFileSize: options.limit,
    maxFiles: MAX_FILES,
    maxFields: MAX_FIELDS,
    maxFieldsSize: MAX_FIELDS_BYTES,
    // Empty files reach the engines, which explain what is wrong with them in the route's terms.
    allowEmptyFiles: true,
    minFileSize: 0,
    // Each file hashed as it is written, for the Idempotency-Key fingerprint the SDK asks for on
    // every call: not read a second time once the body is in (the merge bench measured it).
    hashAlgorithm: 'sha256',
    // Written behind the parse rather than a chunk at a time (upload-file-stream.ts). The file is
    // formidable's VolatileFile, whose path (uploadDir + filename above) its types leave out.
    fileWriteStreamHandler: (file) => uploadFileStream((file as unknown as { filepath: string }).filepath),
  });
  // formidable lists each field's files in the order their disk writes finish, not the order they
  // were sent (measured: 20 files to merge came back shuffled); merge keeps upload order (spec), so
  // remember where each file part began.
  const position = new Map<object, number>();
  // formidable may finish a parse whose file writes failed: it skips writes once a file's stream has
  // failed and can resolve before the failure is reported, leaving a file cut short on disk (a full
  // disk once became "file 2 is empty"). Every write failure is kept and thrown.
  const writeFailures: Error[] = [];
  form.on('fileBegin', (_name, file) => {
    position.set(file, position.size);
    (file as unknown as NodeJS.EventEmitter).on('error', (error: Error) => writeFailures.push(error));
  });
  form.onPart = (part: Part) => {
    const isFile = hasFilename(part);
    const problem = partProblem(spec, part.name, isFile);
    if (problem !== undefined) {
      stopParse(form, new InvalidInputError(problem));
      return;
    }
    if (isFile) {
      // formidable takes a part without a Content-Type for a text field, whatever its filename.
      part.mimetype ||= 'application/octet-stream';
      // A name formidable could not read becomes the routes' "the uploaded file".
      part.originalFilename ??= '';
    }
    form._handlePart(part);
  };
  // Raw body bytes, boundaries and all, counted before each chunk is parsed (formidable emits
  // `progress` ahead of parsing it): what the plan caps is the request, not only the files kept.
  let received = 0;
  form.on('progress', (bytesReceived) => {
    received = bytesReceived;
    if (bytesReceived > options.limit) stopParse(form, options.tooLarge());
  });

  const parsing = form.parse(req);
  // A client gone before or during the parse never sends the rest: stop rather than wait forever
  // (a reset while the work folder was being made once left the parse pending).
  const onAbort = () =>
    stopParse(form, new InvalidInputError('The upload was aborted before it was complete.'));
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });
  // A body that stops coming would hold its place for synchronous calls (upload-pace.ts): cut it.
  const stopWatching = watchPace(
    options.pace,
    () => received,
    (windowBytes) => stopParse(form, options.tooSlow(windowBytes)),
  );
  try {
    const [fields, files] = await parsing;
    const [writeFailure] = writeFailures;
    if (writeFailure !== undefined) throw writeFailure;
    return {
      files: new Map(
        Object.entries(files).map(([name, list]): [string, UploadedFile[]] => [
          name,
          [...(list ?? [])]
            .sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0))
            .map((file) => ({
              path: file.filepath,
              name: file.originalFilename ?? '',
              size: file.size,
              sha256: sha256Of(file),
            })),
        ]),
      ),
      fields: sentFields(fields),
    };
  } catch (error) {
    throw translate(error, spec, options);
  } finally {
    stopWatching();
    options.signal.removeEventListener('abort', onAbort);
  }
}
