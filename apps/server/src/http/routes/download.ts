// GET /api/get-pdf.php (openapi.yaml operation `downloadPdf`): no Authorization, not rate
// limited; the signature is the credential. Streams the stored output as an attachment under its name.
import type { Middleware } from 'koa';
import { asciiName, withoutControls } from '../../operations/output-names.js';
import type { Downloads } from '../../storage/index.js';
import type { AppState } from '../state.js';

const TYPES: Readonly<Record<string, string>> = {
  txt: 'text/plain; charset=utf-8',
  png: 'image/png',
  jpg: 'image/jpeg',
  zip: 'application/zip',
};

function typeOf(filename: string): string {
  return TYPES[filename.slice(filename.lastIndexOf('.') + 1)] ?? 'application/pdf';
}

export function downloadRoute(downloads: Downloads): Middleware<AppState> {
  return async (ctx) => {
    const { meta, body } = await downloads.open(ctx.query);
    ctx.status = 200;
    // Names are cleaned when outputs are named; an output stored by an older version may still hold
    // bidi controls, and this header is where a browser shows the name.
    const filename = withoutControls(meta.filename);
    // An explicit ASCII fallback: content-disposition's own (`fallback: true`) sends Latin-1 names raw,
    // without `filename*`, and turns other scripts into `?`. Any difference adds `filename*` (RFC 5987).
    ctx.attachment(filename, { fallback: asciiName(filename) });
    // Every output is a PDF but the text of OCR of documents and the pages of PDF to images
    // (openapi.yaml `downloadPdf`), told by the extension their operations name them with.
    ctx.type = typeOf(filename);
    ctx.length = meta.size;
    // A signed URL is a bearer credential: keep the file out of shared caches.
    ctx.set('Cache-Control', 'private, no-store');
    // Browsers must not second-guess the type of a file a user uploaded.
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = body;
  };
}
