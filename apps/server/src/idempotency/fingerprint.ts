// What makes two requests "the same request" for Idempotency-Key (openapi.yaml, "Idempotency"): the
// operation, whether it asked for a job, every field's values in order, and every file's part, name
// and bytes. A field sent empty is not among the fields (http/multipart.ts reads it as not sent), so
// `level=` and no `level` make the same request. One SHA-256 over an unambiguous encoding of all of
// that (lengths before values, so no two different requests encode alike). Files come with the SHA-256
// of their bytes, taken while the upload wrote them: reading every file again cost a merge of 20 a
// read of each before its work could start.
import { createHash } from 'node:crypto';

export interface FingerprintInput {
  operation: string;
  async: boolean;
  fields: ReadonlyMap<string, readonly string[]>;
  /** Each file's name and the SHA-256 of its bytes, in hex. */
  files: ReadonlyMap<string, readonly { name: string; sha256: string }[]>;
}

export function fingerprint(input: FingerprintInput): string {
  const parts: string[] = [input.operation, input.async ? 'async' : 'sync'];
  const byName = <T>(map: ReadonlyMap<string, T>) =>
    [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name, values] of byName(input.fields))
    parts.push('field', name, String(values.length), ...values);
  for (const [name, files] of byName(input.files)) {
    parts.push('files', name, String(files.length));
    for (const file of files) parts.push(file.name, file.sha256);
  }
  const hash = createHash('sha256');
  for (const part of parts) hash.update(`${Buffer.byteLength(part)}:${part};`);
  return hash.digest('hex');
}
