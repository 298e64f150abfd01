// The UserStore contract: every backend passes it.
import { describe, expect, it } from 'vitest';
import { type Backend, T0, useAccounts } from '../database/contract-harness.js';
import { EmailTakenError, InvalidUserNameError } from './users.js';

export function usersContract(backend: Backend): void {
  describe(`UserStore (${backend.name})`, () => {
    const f = useAccounts(backend);

    it('ensures a named user once, keeping its plan', async () => {
      const first = await f.accounts.users.ensure('ada', 'free');
      expect(first).toEqual({
        created: true,
        user: { id: first.user.id, name: 'ada', email: null, plan: 'free', createdAt: T0 },
      });
      expect(await f.accounts.users.ensure('ada', 'premium')).toEqual({ created: false, user: first.user });
      await expect(f.accounts.users.ensure('bad name', 'free')).rejects.toThrow(InvalidUserNameError);
      expect(await f.accounts.users.count()).toBe(1);
    });

    it('creates users by email, finds them every way, and keeps emails unique', async () => {
      const bea = await f.accounts.users.createWithEmail('bea@example.com', 'free', 'hash-1');
      expect(bea).toMatchObject({ name: null, email: 'bea@example.com', plan: 'free', createdAt: T0 });
      expect(await f.accounts.users.byEmail('bea@example.com')).toEqual(bea);
      expect(await f.accounts.users.byId(bea.id)).toEqual(bea);
      expect(await f.accounts.users.byName('bea@example.com')).toBeUndefined();
      expect(await f.accounts.users.passwordHash(bea.id)).toBe('hash-1');
      await expect(f.accounts.users.createWithEmail('bea@example.com', 'premium', null)).rejects.toThrow(
        EmailTakenError,
      );
    });

    it('gives a named user an email and a password, and changes plans', async () => {
      const { user } = await f.accounts.users.ensure('ada', 'free');
      expect(await f.accounts.users.passwordHash(user.id)).toBeUndefined();
      expect(await f.accounts.users.setEmail(user.id, 'ada@example.com')).toBe(true);
      await f.accounts.users.setPasswordHash(user.id, 'hash-2');
      expect(await f.accounts.users.setPlan(user.id, 'business')).toBe(true);
      expect(await f.accounts.users.byEmail('ada@example.com')).toMatchObject({
        name: 'ada',
        plan: 'business',
      });
      expect(await f.accounts.users.passwordHash(user.id)).toBe('hash-2');
      const other = await f.accounts.users.createWithEmail('cy@example.com', 'free', null);
      await expect(f.accounts.users.setEmail(other.id, 'ada@example.com')).rejects.toThrow(EmailTakenError);
      expect(await f.accounts.users.setPlan(9999, 'free')).toBe(false);
      expect(await f.accounts.users.setEmail(9999, 'z@example.com')).toBe(false);
    });

    it('lists users oldest first', async () => {
      const ada = (await f.accounts.users.ensure('ada', 'free')).user;
      f.clock += 1;
      const bea = await f.accounts.users.createWithEmail('bea@example.com', 'premium', null);
      expect(await f.accounts.users.list()).toEqual([ada, bea]);
    });
  });
}
