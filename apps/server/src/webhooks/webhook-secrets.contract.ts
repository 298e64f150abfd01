// The webhook secrets contract (STYLE.md 16): every WebhookSecretStore backend, under the one policy
// (WebhookSecrets), passes these cases, run by the database backend's suite.
import { describe, expect, it } from 'vitest';
import { type Backend, useAccounts } from '../database/contract-harness.js';
import { PREVIOUS_SECRET_MS } from './webhook-secrets.js';

export function webhookSecretsContract(backend: Backend): void {
  describe(`WebhookSecrets (${backend.name})`, () => {
    const f = useAccounts(backend);
    const user = async (name: string) => (await f.accounts.users.ensure(name, 'premium')).user.id;

    it('makes one secret on first use and keeps it', async () => {
      const ada = await user('ada');
      const first = await f.accounts.webhookSecrets.current(ada);
      expect(first).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(await f.accounts.webhookSecrets.current(ada)).toBe(first);
      expect(await f.accounts.webhookSecrets.signing(ada)).toEqual([first]);
      expect(await f.accounts.webhookSecrets.current(await user('bob'))).not.toBe(first);
    });

    it('signs with the new and the previous secret for 24 hours after a rotation, then the new one only', async () => {
      const ada = await user('ada');
      const old = await f.accounts.webhookSecrets.current(ada);
      const rotated = await f.accounts.webhookSecrets.rotate(ada);
      expect(await f.accounts.webhookSecrets.current(ada)).toBe(rotated);
      expect(await f.accounts.webhookSecrets.signing(ada)).toEqual([rotated, old]);
      f.clock += PREVIOUS_SECRET_MS;
      expect(await f.accounts.webhookSecrets.signing(ada)).toEqual([rotated]);
    });

    it('keeps one current secret when many first uses race from two handles', async () => {
      const ada = await user('ada');
      const other = await f.again();
      const seen = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? other : f.accounts).webhookSecrets.current(ada)),
      );
      expect(new Set(seen).size).toBe(1);
    });
  });
}
