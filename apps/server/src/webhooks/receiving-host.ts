// The receiving host a webhook delivery counts against (attempt-slots.ts caps attempts in flight per
// host): the callback URL's host and port, as its `Host` header names it. Two receivers on one machine
// behind different ports count apart; one name counts once, whatever addresses it resolves to. The
// stores record it with the delivery so that a claim can pass over the hosts at their cap.
export function receivingHost(url: string): string {
  return new URL(url).host;
}
