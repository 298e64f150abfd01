// multipart/form-data (RFC 7578) written by hand rather than with FormData, because FormData only
// holds Blobs: a one-shot stream would have to be read into memory first. Here, when every part is
// a Blob the body is one composed Blob (file-backed parts stay on disk, Content-Length is known and
// the body can be resent); when a part is a stream the body is a stream, sent once.
export type MultipartField =
  | { name: string; value: string }
  | { name: string; filename: string; type: string; content: Blob | ReadableStream<Uint8Array> };

export interface MultipartBody {
  contentType: string;
  body: Blob | ReadableStream<Uint8Array>;
}

const encoder = new TextEncoder();

export function encodeMultipart(fields: MultipartField[], boundary: string = newBoundary()): MultipartBody {
  const segments: Array<Uint8Array | Blob | ReadableStream<Uint8Array>> = [];
  for (const field of fields) {
    if ('value' in field) {
      segments.push(
        encoder.encode(
          `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(field.name)}"\r\n\r\n`,
        ),
        encoder.encode(`${field.value}\r\n`),
      );
    } else {
      segments.push(
        encoder.encode(
          `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(field.name)}"; ` +
            `filename="${escapeName(field.filename)}"\r\nContent-Type: ${field.type}\r\n\r\n`,
        ),
        field.content,
        encoder.encode('\r\n'),
      );
    }
  }
  segments.push(encoder.encode(`--${boundary}--\r\n`));
  const contentType = `multipart/form-data; boundary=${boundary}`;
  if (segments.every((segment) => !(segment instanceof ReadableStream))) {
    return { contentType, body: new Blob(segments as Array<Uint8Array | Blob>) };
  }
  return { contentType, body: concatStreams(segments) };
}

// The escaping browsers apply to names in Content-Disposition (WHATWG HTML, "multipart/form-data
// encoding algorithm"): a quote or line break in a filename must not end the header.
function escapeName(text: string): string {
  return text.replaceAll('\n', '%0A').replaceAll('\r', '%0D').replaceAll('"', '%22');
}

function newBoundary(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `pdn-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

function concatStreams(
  segments: Array<Uint8Array | Blob | ReadableStream<Uint8Array>>,
): ReadableStream<Uint8Array> {
  let index = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (reader) {
          const next = await reader.read();
          if (!next.done) {
            controller.enqueue(next.value);
            return;
          }
          reader = undefined;
        }
        const segment = segments[index++];
        if (segment === undefined) {
          controller.close();
          return;
        }
        if (segment instanceof Uint8Array) {
          controller.enqueue(segment);
          return;
        }
        reader = (segment instanceof Blob ? segment.stream() : segment).getReader();
      }
    },
    async cancel(reason) {
      // Release the stream being read and the ones not reached yet (their sources hold files/sockets).
      const pending = segments.slice(index).filter((segment) => segment instanceof ReadableStream);
      await Promise.all([reader?.cancel(reason), ...pending.map((stream) => stream.cancel(reason))]);
    },
  });
}
