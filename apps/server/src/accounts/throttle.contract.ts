// The throttle contract: the windows and reservations of throttle.ts over each backend's AttemptStore
// and KnownAddressStore.
import { describe, expect, it } from 'vitest';
import { type Backend, T0, useAccounts } from '../database/contract-harness.js';
import { type Attempt, KNOWN_ADDRESS_MS, RULES } from './throttle.js';

export function throttleContract(backend: Backend): void {
  describe(`Throttle (${backend.name})`, () => {
    const f = useAccounts(backend);
    const account: Attempt = [RULES.signInAccount, 'ada@example.com'];
    const address: Attempt = [RULES.signInAddress, '192.0.2.1'];

    it('holds an account back after its limit, until its oldest attempt leaves the window', async () => {
      for (let i = 0; i < RULES.signInAccount.limit; i += 1) {
        f.clock = T0 + i * 1000;
        expect(await f.accounts.throttle.reserve([account, address])).toMatchObject({ reserved: true });
      }
      f.clock = T0 + 10_000;
      expect(await f.accounts.throttle.reserve([account, address])).toEqual({
        reserved: false,
        waitSeconds: RULES.signInAccount.windowMs / 1000 - 10,
      });
      expect(
        await f.accounts.throttle.reserve([[RULES.signInAccount, 'bea@example.com'], address]),
      ).toMatchObject({ reserved: true });
      f.clock = T0 + RULES.signInAccount.windowMs;
      expect(await f.accounts.throttle.reserve([account])).toMatchObject({ reserved: true });
    });

    it('reserves atomically: of 60 reservations at once, exactly the limit get through, from two handles', async () => {
      const again = await f.again();
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          (i % 2 === 0 ? f.accounts : again).throttle.reserve([
            account,
            [RULES.signInAddress, `10.0.0.${i}`],
          ]),
        ),
      );
      expect(answers.filter((answer) => answer.reserved)).toHaveLength(RULES.signInAccount.limit);
      // A refused reservation records nothing: no address bucket of a refused one holds an attempt.
      const recorded = await Promise.all(
        answers.map((_, i) => f.stores.attempts.count(`sign-in-address:10.0.0.${i}`, 0)),
      );
      expect(recorded.reduce((sum, { count }) => sum + count, 0)).toBe(RULES.signInAccount.limit);
    });

    it('records nothing in any bucket when one of them is full', async () => {
      for (let i = 0; i < RULES.signInAddress.limit; i += 1)
        await f.accounts.throttle.reserve([[RULES.signInAccount, `x${i}@example.com`], address]);
      expect(await f.accounts.throttle.reserve([account, address])).toMatchObject({ reserved: false });
      expect((await f.stores.attempts.count('sign-in-account:ada@example.com', 0)).count).toBe(0);
    });

    it('gives a reservation back, all of it or the buckets of some rules only', async () => {
      const first = await f.accounts.throttle.reserve([account, address]);
      if (!first.reserved) throw new Error('refused');
      await f.accounts.throttle.release(first.reservation, [RULES.signInAccount]);
      expect((await f.stores.attempts.count('sign-in-account:ada@example.com', 0)).count).toBe(0);
      expect((await f.stores.attempts.count('sign-in-address:192.0.2.1', 0)).count).toBe(1);
      await f.accounts.throttle.release(first.reservation);
      expect((await f.stores.attempts.count('sign-in-address:192.0.2.1', 0)).count).toBe(0);
    });

    it('forgets attempts older than the longest window, in every bucket', async () => {
      await f.accounts.throttle.reserve([[RULES.signInAccount, 'once@example.com']]);
      f.clock = T0 + RULES.signUpAddress.windowMs;
      await f.accounts.throttle.reserve([address]);
      expect(await f.stores.attempts.count('sign-in-account:once@example.com', 0)).toEqual({
        count: 0,
        oldest: null,
      });
      expect((await f.stores.attempts.count(`sign-in-address:${address[1]}`, 0)).count).toBe(1);
    });

    it("lets the owner in from an address it signed in from, whatever other addresses' failures", async () => {
      const { user } = await f.accounts.users.ensure('ada', 'free');
      const home = '198.51.100.7';
      const first = await f.accounts.throttle.reserve(
        await f.accounts.throttle.signInAttempts('Ada@Example.com', user.id, home),
      );
      if (!first.reserved) throw new Error('refused');
      await f.accounts.throttle.signedIn(first.reservation, user.id, home);
      for (let i = 0; i < RULES.signInAccount.limit; i += 1)
        await f.accounts.throttle.reserve(
          await f.accounts.throttle.signInAttempts('ada@example.com', user.id, `203.0.113.${i}`),
        );
      const stranger = await f.accounts.throttle.signInAttempts('ada@example.com', user.id, '203.0.113.99');
      expect(await f.accounts.throttle.reserve(stranger)).toMatchObject({ reserved: false });
      const again = await f.again();
      const owner = await again.throttle.signInAttempts('ada@example.com', user.id, home);
      expect(owner.map(([rule]) => rule.name)).toEqual(['sign-in-known', 'sign-in-address']);
      expect(await again.throttle.reserve(owner)).toMatchObject({ reserved: true });
      f.clock = T0 + KNOWN_ADDRESS_MS;
      const later = await again.throttle.signInAttempts('ada@example.com', user.id, home);
      expect(later.map(([rule]) => rule.name)).toEqual(['sign-in-account', 'sign-in-address']);
    });

    it('forgives the owner its own failures at a known address when it gets in', async () => {
      const { user } = await f.accounts.users.ensure('bea', 'free');
      const home = '198.51.100.8';
      await f.accounts.throttle.rememberAddress(user.id, home);
      const attempts = await f.accounts.throttle.signInAttempts('bea@example.com', user.id, home);
      for (let i = 0; i < RULES.signInKnownAddress.limit - 1; i += 1)
        await f.accounts.throttle.reserve(attempts);
      const right = await f.accounts.throttle.reserve(attempts);
      if (!right.reserved) throw new Error('refused');
      await f.accounts.throttle.signedIn(right.reservation, user.id, home);
      expect((await f.stores.attempts.count(`sign-in-known:${user.id}@${home}`, 0)).count).toBe(0);
      expect((await f.stores.attempts.count(`sign-in-address:${home}`, 0)).count).toBe(
        RULES.signInKnownAddress.limit - 1,
      );
    });
  });
}
