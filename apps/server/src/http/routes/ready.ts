// GET /readyz (openapi.yaml operation `ready`): whether this process should be sent traffic,
// apart from /healthz (alive). Ready means the accounts database answers, so does the store of
// rate-limit events (Redis on shared backends, which a worker's BullMQ needs too), the data folder
// takes writes and has room, and, where this process runs jobs (`--role all` or `worker`), the tools
// its engines were started with are still there (an `api` process runs none). A stopping server is
// not ready from the signal on: during the drain delay (http/drain.ts) this route answers 503 while
// other requests are still served, so a balancer stops routing to it before its connections close;
// after that the drain middleware answers 503 first.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Middleware } from 'koa';
import type { Accounts } from '../../accounts/index.js';
import { ServiceUnavailableError } from '../../errors.js';
import type { Role } from '../../role.js';
import type { Storage } from '../../storage/index.js';
import type { Drain } from '../drain.js';
import { sendData } from '../respond.js';
import type { AppState } from '../state.js';

type Check = () => Promise<unknown>;

export interface ReadinessDeps {
  accounts: Accounts;
  storage: Pick<Storage, 'isFull'>;
  dataDir: string;
  role: Role;
  /** The binaries this process's engines run, found at start; none where it runs no jobs. */
  tools: readonly string[];
  drain: Pick<Drain, 'announced'>;
}

export function readyRoute(deps: ReadinessDeps): Middleware<AppState> {
  const { accounts, storage, dataDir } = deps;
  const checks: Record<string, Check> = {
    database: () => accounts.users.count(),
    rate_limits: () => accounts.rateLimiter.usage(0, null),
    data_folder: async () => {
      await access(dataDir, constants.W_OK);
      if (await storage.isFull()) throw new Error('the data folder is full');
    },
    tools: () => Promise.all(deps.tools.map((path) => access(path, constants.X_OK))),
  };
  return async (ctx) => {
    if (deps.drain.announced)
      throw new ServiceUnavailableError('Not ready: the server is shutting down; send traffic elsewhere.', {
        refusal: true,
      });
    const results = await Promise.allSettled(Object.values(checks).map((check) => check()));
    const failing = Object.keys(checks).filter((_, i) => results[i]?.status === 'rejected');
    if (failing.length > 0) {
      ctx.state.log.warn('not ready', {
        failing,
        errors: results.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : [])),
      });
      throw new ServiceUnavailableError(`Not ready: ${failing.join(', ')} failing; try again shortly.`);
    }
    sendData(ctx, { status: 'ready', role: deps.role });
  };
}
