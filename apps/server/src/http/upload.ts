// A parsed multipart request, and the small typed accessors routes use to pull exactly the parts the
// OpenAPI operation declares. Messages name the part, so a caller knows what to change.

import type { WorkContext } from '../engines/types.js';
import { InvalidInputError } from '../errors.js';

export interface UploadedFile {
  /** Where the bytes are on disk, inside the request's work folder. */
  path: string;
  /** The name the client gave the file, for messages and output names (never used as a path). */
  name: string;
  size: number;
  /** The SHA-256 of its bytes in hex, taken as they were written (the Idempotency-Key fingerprint). */
  sha256: string;
}

export interface Upload extends WorkContext {
  files: ReadonlyMap<string, readonly UploadedFile[]>;
  fields: ReadonlyMap<string, readonly string[]>;
}

/** The one file sent as `part`. */
export function singleFile(upload: Upload, part: string, what: string): UploadedFile {
  const files = upload.files.get(part) ?? [];
  const [file] = files;
  if (file === undefined)
    throw new InvalidInputError(`Missing the multipart file part \`${part}\` (${what}).`);
  if (files.length > 1) {
    throw new InvalidInputError(`Send exactly one file in the part \`${part}\`; got ${files.length}.`);
  }
  return file;
}

/** The text field `name` when sent (once), else undefined. */
export function optionalField(upload: Upload, name: string): string | undefined {
  const values = upload.fields.get(name) ?? [];
  if (values.length > 1)
    throw new InvalidInputError(`Send the field \`${name}\` at most once; got ${values.length}.`);
  return values[0];
}

/** The text field `name`, which must be sent once and not be blank (an empty one reads as not sent). */
export function requiredField(upload: Upload, name: string, what: string): string {
  const value = optionalField(upload, name);
  if (value === undefined || value.trim() === '') {
    throw new InvalidInputError(
      `Missing the multipart field \`${name}\` (${what}); a field sent empty counts as not sent.`,
    );
  }
  return value;
}
