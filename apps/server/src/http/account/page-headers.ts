// Headers of every account page. Only our own stylesheet and script may load, no form may
// post elsewhere and no other site may frame the pages (clickjacking a "Revoke" button); nothing is
// cached, since the pages show keys and usage; links leave no URL behind (one-time links carry a token).
export function pageHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy':
      "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; connect-src 'self'; " +
      "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  };
}
