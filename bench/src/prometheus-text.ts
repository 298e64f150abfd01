// Figures read from a server's /metrics text (Prometheus exposition format 0.0.4), measured where
// they happen rather than by a client (the rate-limit decision). Histograms are cumulative
// since the process started, so a measurement is the difference of two scrapes.

/** Cumulative counts by upper bound (`le`, +Infinity last), as the `_bucket` lines give them. */
export type Buckets = [le: number, count: number][];

/** The `_bucket` lines of histogram `name` (one without labels besides `le`). */
export function readBuckets(text: string, name: string): Buckets {
  const line = new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} ([0-9.e+]+)$`, 'gm');
  const buckets: Buckets = [...text.matchAll(line)].map((match) => [
    match[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(match[1]),
    Number(match[2]),
  ]);
  if (buckets.length === 0) throw new Error(`no histogram ${name} in the scrape`);
  return buckets.sort((a, b) => a[0] - b[0]);
}

/** What was observed between two scrapes. */
export function bucketsBetween(before: Buckets, after: Buckets): Buckets {
  return after.map(([le, count], i) => [le, count - (before[i]?.[1] ?? 0)]);
}

/** How many observations, and the share of them at most `bound`, one of the bucket bounds. */
export function shareAtMost(buckets: Buckets, bound: number): { total: number; share: number } {
  const total = buckets.at(-1)?.[1] ?? 0;
  const within = buckets.find(([le]) => le === bound)?.[1];
  if (within === undefined) throw new Error(`${bound} is not a bucket bound`);
  return { total, share: total === 0 ? Number.NaN : within / total };
}

/**
 * The `q` quantile as Prometheus' histogram_quantile() estimates it: linear inside the bucket that
 * holds it (from 0 for the first); the highest finite bound when it falls in the +Inf bucket.
 */
export function quantile(buckets: Buckets, q: number): number {
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total === 0) return Number.NaN;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const [le, count] of buckets) {
    if (count >= rank) {
      if (le === Number.POSITIVE_INFINITY) return lower;
      return lower + ((le - lower) * (rank - below)) / Math.max(1, count - below);
    }
    [lower, below] = [le, count];
  }
  return lower;
}

/** The value of an unlabelled gauge or counter `name`. */
export function readValue(text: string, name: string): number {
  const match = new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text);
  if (!match) throw new Error(`no ${name} in the scrape`);
  return Number(match[1]);
}
