// GET /readyz (openapi.yaml operation `ready`; issue #18): whether this process should be sent traffic,
// apart from /healthz (alive). Ready means the accounts database answers, so does the store of
// rate-limit events (Redis on shared backends), and the data folder takes writes and has room. A
// draining server never gets here: the drain middleware answers 503 first, so a balancer stops
// routing to it before its connections close.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Middleware } from 'koa';
import type { Accounts } from '../../accounts/index.js';
import { ServiceUnavailableError } from '../../errors.js';
import type { Storage } from '../../storage/index.js';
import { sendData } from '../respond.js';
import type { AppState } from '../state.js';

type Check = () => Promise<unknown>;

export function readyRoute(
  accounts: Accounts,
  storage: Pick<Storage, 'isFull'>,
  dataDir: string,
): Middleware<AppState> {
  const checks: Record<string, Check> = {
    database: () => accounts.users.count(),
    rate_limits: () => accounts.rateLimiter.usage(0, null),
    data_folder: async () => {
      await access(dataDir, constants.W_OK);
      if (await storage.isFull()) throw new Error('the data folder is full');
    },
  };
  return async (ctx) => {
    const results = await Promise.allSettled(Object.values(checks).map((check) => check()));
    const failing = Object.keys(checks).filter((_, i) => results[i]?.status === 'rejected');
    if (failing.length > 0) {
      ctx.state.log.warn('not ready', {
        failing,
        errors: results.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : [])),
      });
      throw new ServiceUnavailableError(`Not ready: ${failing.join(', ')} failing; try again shortly.`);
    }
    sendData(ctx, { status: 'ready' });
  };
}
