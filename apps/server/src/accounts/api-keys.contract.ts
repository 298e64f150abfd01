// The ApiKeyStore contract: every backend passes it.
import { describe, expect, it } from 'vitest';
import { type Backend, T0, useAccounts } from '../database/contract-harness.js';
import { hashKey } from './key-format.js';

export function apiKeysContract(backend: Backend): void {
  describe(`ApiKeyStore (${backend.name})`, () => {
    const f = useAccounts(backend);

    it('authenticates a created key as its owner and records its use', async () => {
      const { user } = await f.accounts.users.ensure('ada', 'business');
      const { key, record } = await f.accounts.keys.create(user.id, 'test', 'laptop');
      expect(record).toEqual({
        id: record.id,
        userId: user.id,
        owner: 'ada',
        name: 'laptop',
        kind: 'test',
        prefix: `${key.slice(0, 13)}…`,
        createdAt: T0,
        lastUsedAt: null,
        revokedAt: null,
        expiresAt: null,
      });
      f.clock = T0 + 2_000;
      expect(await f.accounts.keys.authenticate(key)).toEqual({
        userId: user.id,
        owner: 'ada',
        plan: 'business',
        keyId: record.id,
        keyKind: 'test',
      });
      expect(await f.accounts.keys.list(user.id)).toEqual([{ ...record, lastUsedAt: T0 + 2_000 }]);
    });

    it('lists all keys or one user’s, oldest first, labelling email users by email', async () => {
      const ada = (await f.accounts.users.ensure('ada', 'free')).user;
      const bea = await f.accounts.users.createWithEmail('bea@example.com', 'premium', null);
      const records = [];
      for (const [index, user] of [ada, bea, ada].entries()) {
        f.clock = T0 + index;
        records.push((await f.accounts.keys.create(user.id, 'live', `k${index}`)).record);
      }
      expect(await f.accounts.keys.list()).toEqual(records);
      expect((await f.accounts.keys.list(bea.id)).map((k) => k.owner)).toEqual(['bea@example.com']);
      expect(await f.accounts.keys.list(ada.id)).toEqual([records[0], records[2]]);
    });

    it('refuses malformed, unknown and revoked keys', async () => {
      const { user } = await f.accounts.users.ensure('ada', 'free');
      const { key, record } = await f.accounts.keys.create(user.id, 'live', '');
      expect(await f.accounts.keys.authenticate(key.toUpperCase())).toBeUndefined();
      expect(await f.accounts.keys.authenticate(`pdn_live_${'0'.repeat(32)}`)).toBeUndefined();
      expect(await f.accounts.keys.revoke(record.id)).toBe(true);
      expect(await f.accounts.keys.revoke(record.id)).toBe(false);
      expect(await f.accounts.keys.authenticate(key)).toBeUndefined();
    });

    it('revokes for its owner only', async () => {
      const ada = (await f.accounts.users.ensure('ada', 'free')).user;
      const bob = (await f.accounts.users.ensure('bob', 'free')).user;
      const { key, record } = await f.accounts.keys.create(ada.id, 'live', '');
      expect(await f.accounts.keys.revoke(record.id, bob.id)).toBe(false);
      expect(await f.accounts.keys.authenticate(key)).toBeDefined();
      expect(await f.accounts.keys.revoke(record.id, ada.id)).toBe(true);
    });

    it('sees a revocation made through another handle on the very next call (no cache)', async () => {
      const { user } = await f.accounts.users.ensure('ada', 'free');
      const { key, record } = await f.accounts.keys.create(user.id, 'live', '');
      expect(await f.accounts.keys.authenticate(key)).toBeDefined();
      const other = await f.again();
      expect(await other.keys.revoke(record.id)).toBe(true);
      expect(await f.accounts.keys.authenticate(key)).toBeUndefined();
    });

    it('stores only the hash and a display prefix', async () => {
      const { user } = await f.accounts.users.ensure('ada', 'free');
      const { key } = await f.accounts.keys.create(user.id, 'live', '');
      expect(JSON.stringify(await f.accounts.keys.list())).not.toContain(key.slice(13));
      expect(hashKey(key)).toHaveLength(64);
    });

    it('renames an active key for its owner only', async () => {
      const ada = (await f.accounts.users.ensure('ada', 'free')).user;
      const bob = (await f.accounts.users.ensure('bob', 'free')).user;
      const { record } = await f.accounts.keys.create(ada.id, 'live', 'laptop');
      expect(await f.accounts.keys.rename(record.id, bob.id, 'mine now')).toBe(false);
      expect(await f.accounts.keys.rename(record.id, ada.id, 'old laptop')).toBe(true);
      expect((await f.accounts.keys.list(ada.id)).map((k) => k.name)).toEqual(['old laptop']);
      expect(await f.accounts.keys.revoke(record.id)).toBe(true);
      expect(await f.accounts.keys.rename(record.id, ada.id, 'gone')).toBe(false);
    });

    it('rolls a key: a new one of the same name and kind, the old one working until its grace ends', async () => {
      const ada = (await f.accounts.users.ensure('ada', 'free')).user;
      const old = await f.accounts.keys.create(ada.id, 'test', 'CI');
      const grace = 60 * 60_000;
      f.clock = T0 + 1_000;
      const rolled = await f.accounts.keys.roll(old.record.id, ada.id, grace);
      expect(rolled?.record).toMatchObject({
        name: 'CI',
        kind: 'test',
        createdAt: T0 + 1_000,
        expiresAt: null,
      });
      expect(rolled?.key).not.toBe(old.key);
      expect((await f.accounts.keys.list(ada.id)).map((k) => [k.id, k.expiresAt])).toEqual([
        [old.record.id, T0 + 1_000 + grace],
        [rolled?.record.id, null],
      ]);
      f.clock = T0 + 1_000 + grace - 1;
      expect((await f.accounts.keys.authenticate(old.key))?.keyId).toBe(old.record.id);
      expect((await f.accounts.keys.authenticate(rolled?.key ?? ''))?.keyId).toBe(rolled?.record.id);
      f.clock = T0 + 1_000 + grace;
      expect(await f.accounts.keys.authenticate(old.key)).toBeUndefined();
      expect(await f.accounts.keys.rename(old.record.id, ada.id, 'expired')).toBe(false);
      expect(await f.accounts.keys.authenticate(rolled?.key ?? '')).toBeDefined();
    });

    it('rolls with no grace at once, once, and for the owner only', async () => {
      const ada = (await f.accounts.users.ensure('ada', 'free')).user;
      const bob = (await f.accounts.users.ensure('bob', 'free')).user;
      const old = await f.accounts.keys.create(ada.id, 'live', 'laptop');
      expect(await f.accounts.keys.roll(old.record.id, bob.id, 0)).toBeUndefined();
      const other = await f.again();
      // Two rolls at once, through two handles: one new key.
      const both = await Promise.all([
        f.accounts.keys.roll(old.record.id, ada.id, 0),
        other.keys.roll(old.record.id, ada.id, 0),
      ]);
      expect(both.filter((rolled) => rolled !== undefined)).toHaveLength(1);
      expect(await f.accounts.keys.authenticate(old.key)).toBeUndefined();
      expect(await f.accounts.keys.list(ada.id)).toHaveLength(2);
      // Revoked too, for processes that know nothing of expiry.
      const rolledOld = (await f.accounts.keys.list(ada.id)).find((key) => key.id === old.record.id);
      expect(rolledOld).toMatchObject({ revokedAt: T0, expiresAt: T0 });
    });

    it('sees a plan change on the next authentication', async () => {
      const { user } = await f.accounts.users.ensure('ada', 'free');
      const { key } = await f.accounts.keys.create(user.id, 'live', '');
      expect(await f.accounts.users.setPlan(user.id, 'enterprise')).toBe(true);
      expect((await f.accounts.keys.authenticate(key))?.plan).toBe('enterprise');
    });
  });
}
