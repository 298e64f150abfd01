// Child process of the sign-in flood scenario: keeps `concurrency` sign-ins for unknown emails in
// flight against a server for `seconds` (each answer followed at once by another), then prints how
// they were answered as JSON. A process of its own, as an attacker would be: the bench's own event
// loop, which times the merges, then waits on none of the flood's thousands of answers.
// Usage: node sign-in-flood-client.js <baseUrl> <cookie> <csrfToken> <seconds> <concurrency> <one|many>
//   one: every sign-in from the connection's own address; many: each of `concurrency` sign-ins in
//   flight claims an address of its own in 198.18.0.0/15 (set aside for benchmarks) by X-Forwarded-For.

const [baseUrl, cookie, token, seconds, concurrency, addresses] = process.argv.slice(2);
if (!baseUrl || !cookie || !token || !seconds || !concurrency || !['one', 'many'].includes(addresses ?? ''))
  throw new Error(
    'usage: sign-in-flood-client <baseUrl> <cookie> <csrfToken> <seconds> <concurrency> <one|many>',
  );

const width = Number(concurrency);
const until = performance.now() + Number(seconds) * 1000;
const statuses = {};
let sent = 0;

async function keepSigningIn(lane) {
  while (performance.now() < until) {
    sent += 1;
    const forwarded = addresses === 'many' ? { 'x-forwarded-for': `198.18.0.${lane + 1}` } : {};
    // A flood may see its connections cut (a reset under load): counted, not fatal.
    let outcome;
    try {
      const res = await fetch(`${baseUrl}/account/sign-in`, {
        method: 'POST',
        headers: {
          cookie,
          origin: baseUrl,
          'content-type': 'application/x-www-form-urlencoded',
          ...forwarded,
        },
        body: new URLSearchParams({
          csrf: token,
          email: `flood${sent}@example.com`,
          password: 'not the password',
        }),
      });
      await res.arrayBuffer();
      outcome = res.status;
    } catch (error) {
      outcome = error.cause?.code ?? 'failed';
    }
    statuses[outcome] = (statuses[outcome] ?? 0) + 1;
  }
}

await Promise.all(Array.from({ length: width }, (_, lane) => keepSigningIn(lane)));
process.stdout.write(JSON.stringify({ sent, statuses }));
