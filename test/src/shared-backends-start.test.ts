// What a server on shared backends says about them as it starts, as an operator meets it: a Redis
// that keeps nothing on disk is warned about (a restart of Redis would forget every rate window, and
// give each user a full hour of calls again), one with the append-only file is not; and a bucket that
// does not exist stops the start with a message naming the bucket and the fix, not "UnknownError".
// Each Redis here is a redis-server of the test's own, so the machine's own settings do not matter.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OwnService, ownRedis } from './harness/own-services.js';
import { startServer, type TestServer } from './harness/server.js';
import {
  type SharedServices,
  sharedServicesMissing,
  startSharedServices,
} from './harness/shared-services.js';

const noRedisServer = spawnSync('redis-server', ['--version']).status === 0 ? undefined : 'no redis-server';
const missing = (await sharedServicesMissing()) ?? noRedisServer;
if (noRedisServer)
  console.warn('[e2e] skipping shared-backends-start.test.ts: redis-server is not installed');

const FORGETS = /Redis keeps nothing on disk .*every rate window is forgotten/;

describe.skipIf(missing !== undefined)('a server on shared backends, as it starts', () => {
  let services: SharedServices;
  const started: TestServer[] = [];
  const redises: OwnService[] = [];

  beforeAll(async () => {
    services = await startSharedServices();
  });
  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
    await Promise.all(redises.map((redis) => redis.remove()));
    await services?.stop();
  });

  async function serverOn(redisArgs: string[]): Promise<TestServer> {
    const redis = await ownRedis(redisArgs);
    redises.push(redis);
    const server = await startServer({
      env: { ...services.env, PDN_REDIS_URL: redis.url, PDN_LOG_LEVEL: 'info' },
    });
    started.push(server);
    return server;
  }

  it('warns when Redis keeps nothing on disk, and says how to fix it', async () => {
    const server = await serverOn(['--save', '', '--appendonly', 'no']);
    expect(server.log).toMatch(FORGETS);
    expect(server.log).toContain('appendonly yes');
  });

  it('says nothing of the kind when Redis has its append-only file', async () => {
    const server = await serverOn(['--save', '', '--appendonly', 'yes']);
    expect(server.log).not.toMatch(FORGETS);
    expect(server.log).not.toMatch(/Redis has no append-only file/);
  });

  it('stops at a bucket that does not exist, naming it and the fix', async () => {
    const start = startServer({ env: { ...services.env, PDN_S3_BUCKET: 'no-such-bucket-here' } });
    const failed = await start.then(
      (server) => {
        started.push(server);
        return undefined;
      },
      (error: Error) => error.message,
    );
    expect(failed).toMatch(/exited early/);
    expect(failed).toMatch(/the S3 bucket no-such-bucket-here does not exist at http:\/\/\S+\. Create it/);
    expect(failed).toContain('PDN_S3_BUCKET');
    expect(failed).not.toContain('UnknownError');
  });
});
