// Turns whatever the caller passed (uploads.ts `Uploadable`) into a part the multipart encoder can
// send, and knows which parts can be sent twice. Re-openable: paths (a fresh fs.openAsBlob per
// attempt), Blobs and byte buffers. One-shot: streams, async iterables, Responses.
import { AbortError, InvalidInputError } from '../errors.js';
import { NamedUpload, PathFile } from '../uploads.js';
import { loadOnce } from './load-once.js';

export interface UploadPart {
  filename: string;
  type: string;
  /** False for one-shot content: `open` can then be called once only. */
  reusable: boolean;
  open(): Promise<Blob | ReadableStream<Uint8Array>>;
}

const bufferBatchBytes = 8 * 1024 * 1024;

export interface PartDefaults {
  /** The form field, for messages (`file`, `files[1]`, `image`). */
  field: string;
  filename: string;
  type: string;
}

/** Throws InvalidInputError (no status: nothing was sent) for missing or non-file content. */
export function toUploadPart(value: unknown, defaults: PartDefaults): UploadPart {
  if (value instanceof NamedUpload) {
    const inner = toUploadPart(value.content, defaults);
    return { ...inner, filename: value.filename, type: value.type ?? inner.type };
  }
  if (value instanceof PathFile) {
    return {
      filename: value.filename,
      type: value.type ?? defaults.type,
      reusable: true,
      open: () => openPath(value.path, defaults.field),
    };
  }
  if (value instanceof Blob) {
    const name = (value as { name?: unknown }).name;
    const blob = value;
    return {
      filename: typeof name === 'string' && name !== '' ? name : defaults.filename,
      type: value.type || defaults.type,
      reusable: true,
      open: async () => blob,
    };
  }
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
    const blob = new Blob([value instanceof ArrayBuffer ? new Uint8Array(value) : bytesOf(value)]);
    return { filename: defaults.filename, type: defaults.type, reusable: true, open: async () => blob };
  }
  if (value instanceof Response) {
    return oneShot(defaults, value.body ?? emptyStream(), {
      filename: filenameFromUrl(value.url),
      type: value.headers.get('content-type') ?? undefined,
    });
  }
  if (value instanceof ReadableStream) return oneShot(defaults, value, {});
  if (isAsyncIterable(value)) {
    // fs.createReadStream(path) remembers its path: keep its filename like a browser keeps a File's.
    const path = (value as { path?: unknown }).path;
    return oneShot(defaults, streamFromIterable(value), {
      filename: typeof path === 'string' ? lastSegment(path) : undefined,
    });
  }
  if (typeof value === 'string') {
    throw new InvalidInputError(
      `${defaults.field}: a string is not file content; to upload the file at a path, pass fromPath(${JSON.stringify(value)})`,
    );
  }
  if (value === undefined || value === null) throw new InvalidInputError(`${defaults.field} is required`);
  throw new InvalidInputError(
    `${defaults.field}: expected a Blob, bytes, a stream, a Response, fromPath(path) or toFile(content, name), got ${describe(value)}`,
  );
}

/**
 * Reads a one-shot part into memory so it can be resent. The client calls this only when retries
 * are enabled (README, "Streams and retries"); with `maxRetries: 0` a stream goes out as it comes.
 * The caller's abort stops the reading (a stream such as stdin may never end).
 */
export async function buffered(part: UploadPart, signal?: AbortSignal): Promise<UploadPart> {
  if (part.reusable) return part;
  const content = await part.open();
  if (content instanceof Blob) return { ...part, reusable: true, open: async () => content };
  // Copied into Blobs 8 MiB at a time: the chunks of each batch can then be freed, where one Blob
  // made of every chunk at the end would hold the upload twice at its peak.
  const pieces: Blob[] = [];
  let batch: Uint8Array[] = [];
  let batchBytes = 0;
  const reader = content.getReader();
  const onAbort = (): void => {
    reader.cancel(signal?.reason).catch(() => undefined);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      batch.push(next.value);
      batchBytes += next.value.byteLength;
      if (batchBytes >= bufferBatchBytes) {
        pieces.push(new Blob(batch));
        batch = [];
        batchBytes = 0;
      }
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  // A cancelled read ends like a finished one: only the signal tells the bytes are incomplete.
  if (signal?.aborted) throw new AbortError({ cause: signal.reason });
  const blob = new Blob([...pieces, new Blob(batch)]);
  return { ...part, reusable: true, open: async () => blob };
}

function oneShot(
  defaults: PartDefaults,
  stream: ReadableStream<Uint8Array>,
  found: { filename?: string | undefined; type?: string | undefined },
): UploadPart {
  let opened = false;
  return {
    filename: found.filename || defaults.filename,
    type: found.type || defaults.type,
    reusable: false,
    open: async () => {
      if (opened) throw new InvalidInputError(`${defaults.field}: a stream can be sent only once`);
      opened = true;
      return stream;
    },
  };
}

/** Loaded when a path is first uploaded, not at the top: node:fs must stay off the main path. */
const nodeFs = loadOnce(() => import('node:fs'));

async function openPath(path: string, field: string): Promise<Blob> {
  const { openAsBlob, promises } = await nodeFs();
  // stat first: openAsBlob reports a missing file as a bare ERR_INVALID_ARG_VALUE and accepts a
  // directory, failing only later while the body is being sent.
  const stats = await promises.stat(path).catch((cause: NodeJS.ErrnoException) => {
    throw new InvalidInputError(`${field}: cannot read ${path} (${cause.code ?? cause.message})`, { cause });
  });
  if (!stats.isFile()) throw new InvalidInputError(`${field}: ${path} is not a file`);
  return openAsBlob(path);
}

function streamFromIterable(iterable: AsyncIterable<Uint8Array | string>): ReadableStream<Uint8Array> {
  const iterator = iterable[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else
        controller.enqueue(typeof next.value === 'string' ? encoder.encode(next.value) : bytesOf(next.value));
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}

// Node Buffers share a pooled ArrayBuffer: view exactly the bytes of this value, nothing around it.
function bytesOf(view: ArrayBufferView): Uint8Array {
  return view instanceof Uint8Array ? view : new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

function emptyStream(): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (controller) => controller.close() });
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array | string> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

function lastSegment(path: string): string | undefined {
  return path.split(/[\\/]/).at(-1) || undefined;
}

function filenameFromUrl(url: string): string | undefined {
  const last = lastSegment(url.split(/[?#]/)[0] ?? '');
  if (last === undefined) return undefined;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

function describe(value: unknown): string {
  if (typeof value !== 'object') return typeof value;
  return (value as object).constructor?.name ?? 'object';
}
