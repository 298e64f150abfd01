// The recorded-address contract over each backend's ServerAddressStore.
import { describe, expect, it } from 'vitest';
import { type Backend, T0, useAccounts } from '../database/contract-harness.js';

export function serverAddressContract(backend: Backend): void {
  describe(`ServerAddressStore (${backend.name})`, () => {
    const f = useAccounts(backend);

    it('has nothing before a start recorded an address', async () => {
      expect(await f.accounts.serverAddress.recorded()).toBeUndefined();
    });

    it('keeps the latest start, as another process (an admin command) reads it', async () => {
      await f.accounts.serverAddress.record({
        listening: 'http://127.0.0.1:3000',
        publicUrl: null,
        recordedAt: T0,
      });
      const later = {
        listening: 'http://127.0.0.1:3411',
        publicUrl: 'https://pdn.example.com',
        recordedAt: T0 + 1,
      };
      await f.accounts.serverAddress.record(later);
      expect(await (await f.again()).serverAddress.recorded()).toEqual(later);
    });
  });
}
