// Multipart bodies as the API takes them (spec: every endpoint is multipart/form-data): named parts
// holding files with their filenames, and plain text fields.
export type Part =
  | { name: string; file: Uint8Array; filename?: string; type?: string }
  | { name: string; value: string };

export function form(...parts: Part[]): FormData {
  const body = new FormData();
  for (const part of parts) {
    if ('value' in part) body.append(part.name, part.value);
    else
      body.append(
        part.name,
        new Blob([part.file], { type: part.type ?? 'application/pdf' }),
        part.filename ?? 'upload.pdf',
      );
  }
  return body;
}

/** A file part; the filename defaults to one that ends in `.pdf` whatever the bytes are (the server checks bytes). */
export function file(name: string, bytes: Uint8Array, filename = `${name.replace(/\W/g, '')}.pdf`): Part {
  return { name, file: bytes, filename };
}

export function field(name: string, value: string): Part {
  return { name, value };
}
