import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Accounts, openAccounts } from './index.js';
import { hashKey } from './key-format.js';

describe('ApiKeys', () => {
  let dir: string;
  let clock: number;
  let accounts: Accounts;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pdn-keys-'));
    clock = 1_000;
    accounts = openAccounts(dir, () => clock);
  });
  afterEach(() => {
    accounts.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('authenticates a created key as its owner and records its use', () => {
    const { user } = accounts.users.ensure('ada', 'business');
    const { key, record } = accounts.keys.create(user, 'test');
    clock = 2_000;
    expect(accounts.keys.authenticate(key)).toEqual({
      userId: user.id,
      userName: 'ada',
      plan: 'business',
      keyId: record.id,
      keyKind: 'test',
    });
    expect(accounts.keys.list('ada')).toEqual([{ ...record, lastUsedAt: 2_000 }]);
  });

  it("returns from create exactly the record it stored, among other users' keys", () => {
    const ada = accounts.users.ensure('ada', 'free').user;
    const bob = accounts.users.ensure('bob', 'premium').user;
    // list() is oldest first: one key per tick.
    const records = [ada, bob, ada].map((user, index) => {
      clock = 1_000 + index;
      return accounts.keys.create(user, index === 1 ? 'test' : 'live').record;
    });
    expect(accounts.keys.list(undefined)).toEqual(records);
  });

  it('refuses malformed, unknown and revoked keys', () => {
    const { user } = accounts.users.ensure('ada', 'free');
    const { key, record } = accounts.keys.create(user, 'live');
    const unknown = `pdn_live_${'0'.repeat(32)}`;
    expect(accounts.keys.authenticate(key.toUpperCase())).toBeUndefined();
    expect(accounts.keys.authenticate(unknown)).toBeUndefined();
    expect(accounts.keys.revoke(record.id)).toBe(true);
    expect(accounts.keys.revoke(record.id)).toBe(false);
    expect(accounts.keys.authenticate(key)).toBeUndefined();
  });

  it('stores only the hash and a display prefix', () => {
    const { user } = accounts.users.ensure('ada', 'free');
    const { key, record } = accounts.keys.create(user, 'live');
    expect(record.prefix).toBe(`${key.slice(0, 13)}…`);
    expect(JSON.stringify(accounts.keys.list(undefined))).not.toContain(key);
    expect(hashKey(key)).toHaveLength(64);
  });

  it('sees a plan change on the next authentication', () => {
    const { user } = accounts.users.ensure('ada', 'free');
    const { key } = accounts.keys.create(user, 'live');
    expect(accounts.users.setPlan('ada', 'enterprise')).toBe(true);
    expect(accounts.keys.authenticate(key)?.plan).toBe('enterprise');
    expect(accounts.users.setPlan('nobody', 'free')).toBe(false);
  });

  it('keeps an existing user plan when ensuring it again', () => {
    expect(accounts.users.ensure('ada', 'free').created).toBe(true);
    expect(accounts.users.ensure('ada', 'premium')).toMatchObject({ created: false, user: { plan: 'free' } });
    expect(() => accounts.users.ensure('bad name', 'free')).toThrow(/invalid user name/);
  });
});
