// Waiting on state, not on time: a test that waits for something to come to pass looks again every
// 100 ms and fails, naming what it waited for, once `ms` pass.
import { setTimeout as sleep } from 'node:timers/promises';

/** Waits until `check` answers true; fails after `ms`. */
export async function until(what: string, check: () => Promise<boolean>, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting until ${what}`);
    await sleep(100);
  }
}
