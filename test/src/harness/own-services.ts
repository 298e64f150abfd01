// A Redis or PostgreSQL of a test's own, on a free port: the machine's services are shared with other
// runs, so a test that stops one for real (not just cuts a proxy to it) stops one of these. Each can be
// stopped and started again on the same port, as an operator's restart would: Redis here keeps nothing
// on disk unless told to, so it comes back empty; PostgreSQL keeps its folder. Without Debian's
// redis-server or PostgreSQL binaries, ownServicesMissing() says why a suite skips.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { answers } from './shared-services.js';

export interface OwnService {
  url: string;
  /** Stops the process (PostgreSQL: a fast shutdown, sessions closed); its port stays reserved for start(). */
  stop(): Promise<void>;
  /** Starts it again on the same port, resolving once it answers. */
  start(): Promise<void>;
  /** Stops it if it runs, and removes its folder. */
  remove(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Debian's PostgreSQL server binaries (/usr/lib/postgresql/N/bin), the newest, or none. */
function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/** Undefined when both can be started here; else why a suite skips (also logged). */
export function ownServicesMissing(): string | undefined {
  const absent = [];
  if (spawnSync('redis-server', ['--version']).status !== 0) absent.push('redis-server');
  if (postgresBin() === undefined) absent.push("PostgreSQL's server binaries (/usr/lib/postgresql/N/bin)");
  if (absent.length === 0) return undefined;
  const reason = `[e2e] skipping: ${absent.join(' and ')} not installed; .ci/run installs both`;
  console.warn(reason);
  return reason;
}

/** A process of the service that `stop` ends; `start` spawns the next one. */
class Restartable {
  #child: ChildProcess | undefined;

  constructor(
    private readonly spawnOne: () => ChildProcess,
    private readonly ready: () => Promise<boolean>,
    private readonly what: string,
  ) {}

  async start(): Promise<void> {
    const child = this.spawnOne();
    this.#child = child;
    for (let tries = 0; tries < 300; tries++) {
      if (child.exitCode !== null) throw new Error(`${this.what} exited at start (code ${child.exitCode})`);
      if (await this.ready()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${this.what} did not answer within 30 s`);
  }

  /** `signal`: how the service is told to stop (PostgreSQL's fast shutdown is SIGINT). */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
}

/** A redis-server of the test's own; `args` set its persistence (none by default: it restarts empty). */
export async function ownRedis(args: string[] = ['--save', '', '--appendonly', 'no']): Promise<OwnService> {
  const dir = await mkdtemp(join(tmpdir(), 'pdn-e2e-redis-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const server = new Restartable(
    () =>
      spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, ...args], {
        stdio: 'ignore',
      }),
    () => answers(url, port),
    `redis-server on port ${port}`,
  );
  await server.start();
  return {
    url,
    start: () => server.start(),
    stop: () => server.stop(),
    async remove() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Numeric ids of a local account (PostgreSQL refuses to run as root). */
export function idsOf(user: string): { uid: number; gid: number } {
  const id = (flag: string) => Number(spawnSync('id', [flag, user], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * A PostgreSQL cluster of the test's own, trusting local connections, its superuser `root`; `url` is
 * its `postgres` database. Run as the `postgres` account when the test runs as root. `settings`: more
 * server settings, each passed as `-c name=value` (e.g. `shared_preload_libraries`).
 */
export async function ownPostgres(settings: Record<string, string> = {}): Promise<OwnService> {
  const bin = postgresBin();
  if (bin === undefined) throw new Error("PostgreSQL's server binaries are not installed");
  const dir = await mkdtemp(join(tmpdir(), 'pdn-e2e-postgres-'));
  const data = join(dir, 'data');
  await mkdir(data);
  const account = process.getuid?.() === 0 ? idsOf('postgres') : undefined;
  if (account !== undefined) {
    await chown(dir, account.uid, account.gid);
    await chown(data, account.uid, account.gid);
  }
  const as = account ?? {};
  const init = spawnSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'root', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
    { ...as, encoding: 'utf8' },
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const url = `postgres://root@127.0.0.1:${port}/postgres`;
  const serverSettings = Object.entries({ listen_addresses: '127.0.0.1', fsync: 'off', ...settings }).flatMap(
    ([name, value]) => ['-c', `${name}=${value}`],
  );
  const ready = async () => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  };
  const server = new Restartable(
    () =>
      spawn(join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, ...serverSettings], {
        ...as,
        stdio: 'ignore',
      }),
    ready,
    `PostgreSQL on port ${port}`,
  );
  await server.start();
  return {
    url,
    start: () => server.start(),
    stop: () => server.stop('SIGINT'),
    async remove() {
      await server.stop('SIGINT');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
