// The shared services the unit tests of the PostgreSQL, Redis and S3 backends use: the
// machine's PostgreSQL (127.0.0.1:5432, database `test`, trust auth) and Redis (127.0.0.1:6379), as
// `.ci/run` installs and starts them, or PDN_TEST_DATABASE_URL / PDN_TEST_REDIS_URL. Suites skip, saying
// why, when a service does not answer; they never stop or reconfigure one (other runs share them), and
// keep what they make apart (a schema, a key prefix of their own) so parallel runs never collide.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';

export const TEST_DATABASE_URL = process.env.PDN_TEST_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.PDN_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether something accepts TCP connections at the URL's host and port within a second. */
export function answers(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || defaultPort), timeout: 1000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/** Undefined when the service answers, else the reason a suite skips (also printed). */
export async function missingService(name: 'PostgreSQL' | 'Redis'): Promise<string | undefined> {
  const [url, port, variable] =
    name === 'PostgreSQL'
      ? [TEST_DATABASE_URL, 5432, 'PDN_TEST_DATABASE_URL']
      : [TEST_REDIS_URL, 6379, 'PDN_TEST_REDIS_URL'];
  if (await answers(url, port)) return undefined;
  const reason = `skipping the ${name} suites: nothing answers at ${url} (start ${name}, or set ${variable}; .ci/run installs it)`;
  console.warn(`[server] ${reason}`);
  return reason;
}

/** A name no other run uses: a schema, a key prefix. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}
