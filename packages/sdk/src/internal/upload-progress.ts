// Upload progress (the CLI's spinner shows bytes for large uploads). fetch has no upload
// progress event, so the body is handed to fetch as a stream that counts what fetch reads from it;
// nothing is buffered. A Blob body turned into a stream would lose its known size, and with it the
// Content-Length the server reads to refuse an oversize upload before any byte of the body arrives
// (openapi.yaml, 413 `payload_too_large`); so that size is sent as Content-Length explicitly. Node's
// fetch (undici) sends such a stream as a fixed-length body, and fails the request if the bytes do
// not match. Browsers forbid setting Content-Length and stream uploads only over HTTP/2, so there
// request.ts sends the Blob itself and reports progress only at the start and once answered.

export interface UploadProgress {
  /** Bytes of the request body handed to the connection so far, in this attempt. */
  loaded: number;
  /** The whole body's size, multipart framing included; `undefined` for a one-shot stream. */
  total: number | undefined;
}

export interface CountedBody {
  body: ReadableStream<Uint8Array>;
  /** To send as Content-Length: the Blob's size, or `undefined` for a stream of unknown length. */
  length: number | undefined;
}

export function countUpload(
  body: Blob | ReadableStream<Uint8Array>,
  onProgress: (progress: UploadProgress) => void,
): CountedBody {
  const total = body instanceof Blob ? body.size : undefined;
  let loaded = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      loaded += chunk.byteLength;
      controller.enqueue(chunk);
      onProgress({ loaded, total });
    },
  });
  const source = body instanceof Blob ? body.stream() : body;
  return { body: source.pipeThrough(counter), length: total };
}
