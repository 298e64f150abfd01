// What makes two requests "the same request" for Idempotency-Key (issue #14; openapi.yaml,
// "Idempotency"): the operation, whether it asked for a job, every field's values in order, and every
// file's part, name and bytes. One SHA-256 over an unambiguous encoding of all of that (lengths before
// values, so no two different requests encode alike); files are hashed from disk, streamed.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export interface FingerprintInput {
  operation: string;
  async: boolean;
  fields: ReadonlyMap<string, readonly string[]>;
  files: ReadonlyMap<string, readonly { path: string; name: string }[]>;
}

async function fileHash(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function fingerprint(input: FingerprintInput): Promise<string> {
  const parts: string[] = [input.operation, input.async ? 'async' : 'sync'];
  const byName = <T>(map: ReadonlyMap<string, T>) =>
    [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name, values] of byName(input.fields))
    parts.push('field', name, String(values.length), ...values);
  for (const [name, files] of byName(input.files)) {
    parts.push('files', name, String(files.length));
    for (const file of files) parts.push(file.name, await fileHash(file.path));
  }
  const hash = createHash('sha256');
  for (const part of parts) hash.update(`${Buffer.byteLength(part)}:${part};`);
  return hash.digest('hex');
}
