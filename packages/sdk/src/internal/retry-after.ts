// The Retry-After header, RFC 9110 section 10.2.3: `Retry-After = HTTP-date / delay-seconds`.
// Our server sends delay-seconds (openapi.yaml `Retry-After`); proxies in between may send a date.
// Also `retry-after-ms`, milliseconds, which servers in openai-node's family send and which is read first.

const delaySeconds = /^\d+$/;
const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const month = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const time = '(\\d\\d):(\\d\\d):(\\d\\d)';
// RFC 9110 section 5.6.7: IMF-fixdate is what senders must use; recipients must also accept the
// obsolete RFC 850 and asctime forms. All three are UTC (asctime has no zone and is UTC by rule),
// which is why Date.parse is not used: it reads a zone-less asctime date as local time.
const imfFixdate = new RegExp(`^[A-Z][a-z]{2}, (\\d\\d) ${month} (\\d{4}) ${time} GMT$`);
const rfc850Date = new RegExp(`^[A-Z][a-z]+, (\\d\\d)-${month}-(\\d\\d) ${time} GMT$`);
const asctimeDate = new RegExp(`^[A-Z][a-z]{2} ${month} ([ \\d]\\d) ${time} (\\d{4})$`);

/**
 * Milliseconds to wait as asked by a Retry-After value, measured from `now`; 0 for a date in the
 * past; `undefined` when the header is absent or not a valid value (then the caller backs off).
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (delaySeconds.test(text)) return Number(text) * 1000;
  const at = parseHttpDate(text, now);
  return at === undefined ? undefined : Math.max(0, at - now);
}

function parseHttpDate(text: string, now: number): number | undefined {
  let m = imfFixdate.exec(text);
  if (m) return utc(Number(m[3]), m[2], m[1], m[4], m[5], m[6]);
  m = rfc850Date.exec(text);
  if (m) {
    // RFC 9110 section 5.6.7: a two-digit year more than 50 years in the future is in the past century.
    const thisYear = new Date(now).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(m[3]);
    if (year > thisYear + 50) year -= 100;
    return utc(year, m[2], m[1], m[4], m[5], m[6]);
  }
  m = asctimeDate.exec(text);
  if (m) return utc(Number(m[6]), m[1], m[2]?.trim(), m[3], m[4], m[5]);
  return undefined;
}

function utc(
  year: number,
  monthName: string | undefined,
  ...fields: Array<string | undefined>
): number | undefined {
  const monthIndex = monthNames.indexOf(monthName ?? '');
  const [day, hours, minutes, seconds] = fields.map(Number) as [number, number, number, number];
  const at = new Date(Date.UTC(year, monthIndex, day, hours, minutes, seconds));
  // Date.UTC rolls "31 Feb" over into March; a date that does not round-trip is not a date.
  const valid =
    monthIndex >= 0 &&
    at.getUTCFullYear() === year &&
    at.getUTCMonth() === monthIndex &&
    at.getUTCDate() === day &&
    at.getUTCHours() === hours &&
    at.getUTCMinutes() === minutes &&
    at.getUTCSeconds() === seconds;
  return valid ? at.getTime() : undefined;
}

/**
 * Milliseconds asked by a `retry-after-ms` header (openai-node's: a number of milliseconds, fractions
 * allowed); `undefined` when absent or not a non-negative number, and then Retry-After decides.
 */
export function parseRetryAfterMs(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return undefined;
  return Number(value);
}
