// The DeviceLoginStore contract, through the policy over it (device-logins.ts): every backend passes it.
import { describe, expect, it } from 'vitest';
import { type Backend, T0, useAccounts } from '../database/contract-harness.js';
import { DEVICE_CODE_TTL_MS, displayUserCode, POLL_INTERVAL_MS } from './device-logins.js';

export function deviceLoginsContract(backend: Backend): void {
  describe(`DeviceLogins (${backend.name})`, () => {
    const f = useAccounts(backend);
    const logins = () => f.accounts.deviceLogins;

    it('grants a key once to the CLI whose code its owner approved, after pending polls', async () => {
      const { user } = await f.accounts.users.ensure('ada', 'free');
      const started = await logins().start('ada-laptop\u0007', '203.0.113.5');
      expect(started).toMatchObject({ expiresInMs: DEVICE_CODE_TTL_MS, intervalMs: POLL_INTERVAL_MS });
      expect(started.userCode).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
      expect(await logins().poll(started.deviceCode)).toEqual({ error: 'authorization_pending' });
      // The owner types it as shown, in any case.
      const typed = displayUserCode(started.userCode).toLowerCase();
      expect(await logins().pending(typed)).toMatchObject({
        clientName: 'ada-laptop',
        clientAddress: '203.0.113.5',
        createdAt: T0,
        state: 'pending',
      });
      expect(await logins().decide(typed, user.id, true)).toBe(true);
      expect(await logins().decide(typed, user.id, false)).toBe(false);
      f.clock = T0 + POLL_INTERVAL_MS;
      expect(await logins().poll(started.deviceCode)).toEqual({
        granted: { userId: user.id, clientName: 'ada-laptop' },
      });
      f.clock = T0 + 2 * POLL_INTERVAL_MS;
      expect(await logins().poll(started.deviceCode)).toEqual({ error: 'invalid_grant' });
      expect(await logins().pending(typed)).toBeUndefined();
    });

    it('tells a CLI polling too fast to slow down, by 5 seconds more each time', async () => {
      const started = await logins().start('ci', '203.0.113.5');
      expect(await logins().poll(started.deviceCode)).toEqual({ error: 'authorization_pending' });
      f.clock = T0 + 1_000;
      expect(await logins().poll(started.deviceCode)).toEqual({ error: 'slow_down' });
      f.clock = T0 + 1_000 + POLL_INTERVAL_MS;
      expect(await logins().poll(started.deviceCode)).toEqual({ error: 'slow_down' });
      f.clock = T0 + 1_000 + 2 * POLL_INTERVAL_MS + 10_000;
      expect(await logins().poll(started.deviceCode)).toEqual({ error: 'authorization_pending' });
    });

    it('ends a denied, an expired and an unknown code', async () => {
      const { user } = await f.accounts.users.ensure('ada', 'free');
      const denied = await logins().start('laptop', '203.0.113.5');
      expect(await logins().decide(denied.userCode, user.id, false)).toBe(true);
      expect(await logins().poll(denied.deviceCode)).toEqual({ error: 'access_denied' });
      const late = await logins().start('laptop', '203.0.113.5');
      f.clock = T0 + DEVICE_CODE_TTL_MS;
      expect(await logins().pending(late.userCode)).toBeUndefined();
      expect(await logins().decide(late.userCode, user.id, true)).toBe(false);
      expect(await logins().poll(late.deviceCode)).toEqual({ error: 'expired_token' });
      expect(await logins().poll('not a device code')).toEqual({ error: 'invalid_grant' });
      expect(await logins().pending('BCDF-GHJ')).toBeUndefined();
      expect(await logins().pending('AEIO-UBCD')).toBeUndefined();
    });

    it('grants one of two polls racing after the approval, through two handles', async () => {
      const { user } = await f.accounts.users.ensure('ada', 'free');
      const started = await logins().start('laptop', '203.0.113.5');
      await logins().decide(started.userCode, user.id, true);
      const other = await f.again();
      const answers = await Promise.all([
        logins().poll(started.deviceCode),
        other.deviceLogins.poll(started.deviceCode),
      ]);
      expect(answers.filter((answer) => 'granted' in answer)).toHaveLength(1);
    });
  });
}
