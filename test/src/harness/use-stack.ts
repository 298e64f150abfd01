// The distributed stack for one test file (the existing contract suite passes against the stack as it
// does embedded): PostgreSQL, Redis and s3rver (shared-services.ts), two API processes
// and two workers, each on a data folder of its own. Its context is the embedded one's (use-server.ts),
// so the same cases run on both: `call` takes turns between the API processes, as a load balancer
// would, so a job submitted through one is read and downloaded through the other; `server` is the
// first API process, for keys. After the suite, no process may have kept a temp file.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { call } from '../contract/checked-fetch.js';
import { filesLeftSince, listFiles } from './leftovers.js';
import { startServer, type TestServer } from './server.js';
import { type SharedServices, startSharedServices } from './shared-services.js';
import type { ServerContext } from './use-server.js';

export function useStack(env: Record<string, string> = {}): ServerContext {
  let services: SharedServices | undefined;
  let apis: TestServer[] = [];
  let processes: TestServer[] = [];
  const atStart = new Map<TestServer, Set<string>>();
  let turn = 0;

  beforeAll(async () => {
    services = await startSharedServices();
    const shared = { ...services.env, PDN_SIGNING_SECRET: randomBytes(32).toString('hex'), ...env };
    apis = await Promise.all([
      startServer({ env: shared, role: 'api' }),
      startServer({ env: shared, role: 'api' }),
    ]);
    processes = [
      ...apis,
      ...(await Promise.all([
        startServer({ env: shared, role: 'worker' }),
        startServer({ env: shared, role: 'worker' }),
      ])),
    ];
    for (const process of processes) atStart.set(process, await listFiles(process));
  }, 180_000);

  afterAll(async () => {
    try {
      const left: string[] = [];
      for (const process of processes)
        for (const path of await filesLeftSince(process, atStart.get(process) ?? new Set()))
          left.push(`${process.rootDir}: ${path}`);
      if (left.length > 0)
        throw new Error(`temp files outlived the suite's requests:\n  ${left.join('\n  ')}`);
    } finally {
      for (const process of processes.reverse()) await process.stop();
      await services?.stop();
    }
  }, 120_000);

  const context: ServerContext = {
    get server() {
      const first = apis[0];
      if (!first) throw new Error('the stack is not running: use it inside a test or hook');
      return first;
    },
    call: (path, options) => {
      turn += 1;
      const api = apis[turn % apis.length] as TestServer;
      return call(api.baseUrl, path, options);
    },
  };
  return context;
}
