// Moments as a person reads them ("times shown in local time or as 'in 15 minutes'"):
// the local wall-clock time, then how far away it is. --json keeps the API's raw values.

/** `14:05 (in 58 minutes)`; another day adds the date: `2026-11-24 09:10 (in 19 hours)`. */
export function describeWhen(at: Date, now: Date): string {
  const sameDay = at.toDateString() === now.toDateString();
  const clock = `${pad(at.getHours())}:${pad(at.getMinutes())}`;
  const day = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
  return `${sameDay ? clock : `${day} ${clock}`} (${relative(at.getTime() - now.getTime())})`;
}

/** `in 45 seconds`, `in 15 minutes`, `in 2 hours`; `now` within a second; `2 minutes ago` past. */
export function relative(ms: number): string {
  const seconds = Math.round(Math.abs(ms) / 1000);
  if (seconds === 0) return 'now';
  const [count, unit] =
    seconds < 90
      ? [seconds, 'second']
      : seconds < 90 * 60
        ? [Math.round(seconds / 60), 'minute']
        : [Math.round(seconds / 3600), 'hour'];
  const amount = `${count} ${unit}${count === 1 ? '' : 's'}`;
  return ms > 0 ? `in ${amount}` : `${amount} ago`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
