// The one-time link contract: sign-in-links.ts over each backend's SignInLinkStore.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type Backend, T0, useAccounts } from '../database/contract-harness.js';
import { LINK_TTL_MS } from './sign-in-links.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

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

    it('clears expired links of every user away when issuing one', async () => {
      const ada = (await f.accounts.users.createWithEmail('ada@example.com', 'free', null)).id;
      const bea = (await f.accounts.users.createWithEmail('bea@example.com', 'free', null)).id;
      const expired = await f.accounts.signInLinks.issue(ada);
      f.clock = T0 + LINK_TTL_MS;
      await f.accounts.signInLinks.issue(bea);
      // Straight from the store, past the expiry check: the row itself is gone.
      expect(await f.stores.signInLinks.redeem(sha256(expired), 0)).toBeUndefined();
    });
  });
}
