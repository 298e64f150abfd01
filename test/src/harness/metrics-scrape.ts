// The server's /metrics as numbers: `name{labels}` -> value, for tests that count what the server did.

/** `name{labels} value` lines as a map from `name{labels}` to the number. */
export function metricSamples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    found.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return found;
}

/** One scrape of a server started without PDN_METRICS_TOKEN. */
export async function scrapeMetrics(baseUrl: string): Promise<Map<string, number>> {
  const res = await fetch(`${baseUrl}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return metricSamples(await res.text());
}
