// An outage of a backend as the log tells it: its first failure and its recovery, once each, whatever
// the number of clients, reconnection attempts and retries that meet it meanwhile.
import type { Logger } from '../logger.js';

/** Logs the first failure of an outage and the recovery, not every reconnection attempt. */
export function outageLog(log: Logger, service: string) {
  let down = false;
  return {
    failed(error: unknown) {
      if (down) return;
      down = true;
      log.warn(`${service} unreachable: requests that need it are answered 503 until it is back`, { error });
    },
    recovered() {
      if (!down) return;
      down = false;
      log.info(`${service} reachable again`);
    },
  };
}
