// What callers may upload (STYLE.md principle 8).
// Paths are explicit (`fromPath`) because a bare string is refused as content: a path is not content.

/**
 * File content the SDK can send. `Blob`/`File` and byte buffers (`Buffer`, `Uint8Array`, any
 * `ArrayBufferView`, `ArrayBuffer`) can be resent on retries; web `ReadableStream`s, Node readable
 * streams (any `AsyncIterable` of bytes, e.g. `process.stdin` or `fs.createReadStream`) and
 * `Response`s are one-shot (see the README, "Streams and retries").
 */
export type Uploadable =
  | Blob
  | ArrayBufferView
  | ArrayBuffer
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array | string>
  | Response
  | PathFile
  | NamedUpload;

/** A file on disk, opened with `fs.openAsBlob` at send time so it streams and re-opens for retries. */
export class PathFile {
  readonly path: string;
  readonly filename: string;
  readonly type: string | undefined;

  constructor(path: string, options: UploadOptions = {}) {
    this.path = path;
    this.filename = options.filename ?? basename(path);
    this.type = options.type;
  }
}

/** Content with an explicit filename (and optionally a media type), made by `toFile`. */
export class NamedUpload {
  readonly content: Exclude<Uploadable, NamedUpload>;
  readonly filename: string;
  readonly type: string | undefined;

  constructor(content: Exclude<Uploadable, NamedUpload>, filename: string, type?: string | undefined) {
    this.content = content;
    this.filename = filename;
    this.type = type;
  }
}

export interface UploadOptions {
  /** Name sent with the part; the server names its outputs after it (`a.pdf` -> `a.compressed.pdf`). */
  filename?: string | undefined;
  /** Media type of the part; defaults to the content's own type, else `application/pdf` for PDFs. */
  type?: string | undefined;
}

/**
 * Upload the file at `path`. Nothing is read until the request is sent, and then it is streamed
 * from disk (Node only: it loads `node:fs` when the request is made).
 */
export function fromPath(path: string, options?: UploadOptions): PathFile {
  return new PathFile(path, options);
}

/** Give content a filename, e.g. `toFile(process.stdin, 'scan.pdf')`. Synchronous: nothing is read. */
export function toFile(
  content: Exclude<Uploadable, NamedUpload>,
  filename: string,
  options?: Pick<UploadOptions, 'type'>,
): NamedUpload {
  return new NamedUpload(content, filename, options?.type);
}

// Not node:path: this module is on the main path, which must run wherever fetch does.
function basename(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts.filter((part) => part !== '').at(-1) ?? path;
}
