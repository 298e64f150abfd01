// A PgBouncer of a test's own, in transaction mode, in front of a PostgreSQL: every database name is
// passed through to it, each on at most `serverConnections` server connections however many clients
// connect. Debian's pgbouncer, run as the `postgres` account when the test runs as root (PgBouncer
// refuses to run as root). Without it, pgbouncerMissing() says why a suite skips.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort, idsOf } from './own-services.js';

const BINARY = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  /** `databaseUrl` with its host and port PgBouncer's. */
  through(databaseUrl: string): string;
  stop(): Promise<void>;
}

/** Undefined when PgBouncer is installed; else why a suite skips (also logged). */
export function pgbouncerMissing(): string | undefined {
  if (spawnSync(BINARY, ['--version']).status === 0) return undefined;
  const reason = '[e2e] skipping: pgbouncer not installed; .ci/run installs it';
  console.warn(reason);
  return reason;
}

/** PgBouncer in front of `postgresUrl` (its host, port and user), answering once it takes a query. */
export async function startPgBouncer(postgresUrl: string, serverConnections: number): Promise<PgBouncer> {
  const target = new URL(postgresUrl);
  const dir = await mkdtemp(join(tmpdir(), 'pdn-e2e-pgbouncer-'));
  const port = await freePort();
  const user = decodeURIComponent(target.username);
  await writeFile(join(dir, 'users.txt'), `"${user}" ""\n`);
  await writeFile(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432} user=${user}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      "unix_socket_dir = ''",
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${serverConnections}`,
      'max_client_conn = 500',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  const account = process.getuid?.() === 0 ? idsOf('postgres') : undefined;
  if (account !== undefined) await chown(dir, account.uid, account.gid);
  const child: ChildProcess = spawn(BINARY, [join(dir, 'pgbouncer.ini')], { ...account, stdio: 'ignore' });
  const url = `postgres://${target.username}@127.0.0.1:${port}/${target.pathname.slice(1) || 'postgres'}`;
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited at start (code ${child.exitCode})`);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    const answered = await client
      .connect()
      .then(() => client.query('SELECT 1'))
      .then(
        () => true,
        () => false,
      );
    await client.end().catch(() => {});
    if (answered) break;
    if (tries >= 100) throw new Error(`pgbouncer on port ${port} did not answer within 10 s`);
    await sleep(100);
  }
  return {
    through(databaseUrl) {
      const via = new URL(databaseUrl);
      via.hostname = '127.0.0.1';
      via.port = String(port);
      return via.toString();
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
