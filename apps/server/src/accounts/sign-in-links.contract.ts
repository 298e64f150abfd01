// The one-time link contract (issue #12): sign-in-links.ts over each backend's SignInLinkStore.
import { describe, expect, it } from 'vitest';
import { type Backend, T0, useAccounts } from './contract-harness.js';
import { LINK_TTL_MS } from './sign-in-links.js';

export function signInLinksContract(backend: Backend): void {
  describe(`SignInLinks (${backend.name})`, () => {
    const f = useAccounts(backend);

    it('is good once, within its lifetime, and a new link replaces the old', async () => {
      const userId = (await f.accounts.users.createWithEmail('ada@example.com', 'free', null)).id;
      const old = await f.accounts.signInLinks.issue(userId);
      const token = await f.accounts.signInLinks.issue(userId);
      expect(await f.accounts.signInLinks.peek(old)).toBeUndefined();
      expect(await f.accounts.signInLinks.peek(token)).toBe(userId);
      expect(await f.accounts.signInLinks.peek(token)).toBe(userId);
      expect(await f.accounts.signInLinks.redeem(token)).toBe(userId);
      expect(await f.accounts.signInLinks.redeem(token)).toBeUndefined();
      const late = await f.accounts.signInLinks.issue(userId);
      f.clock = T0 + LINK_TTL_MS;
      expect(await f.accounts.signInLinks.peek(late)).toBeUndefined();
      expect(await f.accounts.signInLinks.redeem(late)).toBeUndefined();
    });
  });
}
