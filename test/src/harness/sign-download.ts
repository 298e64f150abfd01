// Forges download URLs that are *validly signed* with the test server's PDN_SIGNING_SECRET, so tests
// can reach the checks behind the signature (expired, gone, odd ids) without waiting 15 minutes.
// The scheme is the server's (apps/server/src/storage/url-signer.ts): hex HMAC-SHA256 over
// "pdn-download-v1\n" + file + "\n" + exp. If the server changes it, these tests fail loudly.
import { createHmac } from 'node:crypto';

export function signDownload(secret: string, file: string, exp: string | number): string {
  return createHmac('sha256', secret).update(`pdn-download-v1\n${file}\n${exp}`).digest('hex');
}

/** `/api/get-pdf.php?file=…&exp=…&sig=…` with each value URL-encoded as given. */
export function signedDownloadUrl(secret: string, file: string, exp: string | number): string {
  const query = new URLSearchParams({ file, exp: String(exp), sig: signDownload(secret, file, exp) });
  return `/api/get-pdf.php?${query}`;
}
