// The throttle contract (issue #12): the windows in throttle.ts over each backend's AttemptStore.
import { describe, expect, it } from 'vitest';
import { type Backend, T0, useAccounts } from './contract-harness.js';
import { type Attempt, RULES } from './throttle.js';

export function throttleContract(backend: Backend): void {
  describe(`Throttle (${backend.name})`, () => {
    const f = useAccounts(backend);
    const account: Attempt = [RULES.signInAccount, 'ada@example.com'];
    const address: Attempt = [RULES.signInAddress, '192.0.2.1'];

    it('holds an account back after its limit, until its oldest attempt leaves the window', async () => {
      for (let i = 0; i < RULES.signInAccount.limit; i += 1) {
        expect(await f.accounts.throttle.waitSeconds([account, address])).toBe(0);
        f.clock = T0 + i * 1000;
        await f.accounts.throttle.record([account, address]);
      }
      f.clock = T0 + 10_000;
      expect(await f.accounts.throttle.waitSeconds([account, address])).toBe(
        RULES.signInAccount.windowMs / 1000 - 10,
      );
      expect(await f.accounts.throttle.waitSeconds([[RULES.signInAccount, 'bea@example.com'], address])).toBe(
        0,
      );
      f.clock = T0 + RULES.signInAccount.windowMs;
      expect(await f.accounts.throttle.waitSeconds([account])).toBe(0);
    });

    it('forgets attempts older than the longest window, in every bucket', async () => {
      await f.accounts.throttle.record([[RULES.signInAccount, 'once@example.com']]);
      f.clock = T0 + RULES.signUpAddress.windowMs;
      await f.accounts.throttle.record([address]);
      expect(await f.stores.attempts.count('sign-in-account:once@example.com', 0)).toEqual({
        count: 0,
        oldest: null,
      });
      expect((await f.stores.attempts.count(`sign-in-address:${address[1]}`, 0)).count).toBe(1);
    });

    it('forgives an account on clear, not its address, and shares counts across handles', async () => {
      for (let i = 0; i < RULES.signInAddress.limit; i += 1)
        await f.accounts.throttle.record([account, address]);
      await f.accounts.throttle.clear(...account);
      const again = await f.again();
      expect(await again.throttle.waitSeconds([account])).toBe(0);
      expect(await again.throttle.waitSeconds([address])).toBeGreaterThan(0);
    });
  });
}
