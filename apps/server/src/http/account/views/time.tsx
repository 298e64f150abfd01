// Times as people read them on the account pages: "2026-01-01 12:00 UTC", and "3 min ago" beside it.
// UTC on the server; the <time> element carries the exact instant for anyone who needs it.

export function utc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function ago(ms: number, now: number): string {
  const minutes = Math.floor((now - ms) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

/** How long to wait before trying again, as the throttled forms say it. */
export function waitText(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? 'a second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes <= 1 ? 'a minute' : `${minutes} minutes`;
}

/** "in 5 min", up to an hour; then hours, then days, so a week's grace is not "in 10080 min". */
export function fromNow(ms: number, now: number): string {
  const minutes = Math.ceil((ms - now) / 60_000);
  if (minutes <= 1) return 'in a minute';
  if (minutes <= 60) return `in ${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `in ${hours} h`;
  return `in ${Math.round(hours / 24)} days`;
}

export function When(props: { at: number | null; now: number; never?: string }) {
  if (props.at === null) return <span class="muted">{props.never ?? 'never'}</span>;
  return (
    <time dateTime={new Date(props.at).toISOString()} title={utc(props.at)}>
      {ago(props.at, props.now)}
    </time>
  );
}
