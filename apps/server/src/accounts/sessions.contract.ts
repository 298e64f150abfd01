// The session contract: the expiry policy in sessions.ts over each backend's SessionStore.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type Backend, T0, useAccounts } from '../database/contract-harness.js';
import { DEFAULT_SESSION_LIMITS } from './index.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const { idleMs, maxMs } = DEFAULT_SESSION_LIMITS;

export function sessionsContract(backend: Backend): void {
  describe(`Sessions (${backend.name})`, () => {
    const f = useAccounts(backend);
    const user = async () => (await f.accounts.users.createWithEmail('ada@example.com', 'free', null)).id;

    it('starts a session with a fresh id and token, resumes it, and ends it', async () => {
      const userId = await user();
      const first = await f.accounts.sessions.start(userId);
      const second = await f.accounts.sessions.start(userId);
      expect(first.id).not.toBe(second.id);
      expect(first.csrfToken).not.toBe(second.csrfToken);
      expect(await f.accounts.sessions.resume(first.id)).toEqual({ userId, csrfToken: first.csrfToken });
      await f.accounts.sessions.end(first.id);
      expect(await f.accounts.sessions.resume(first.id)).toBeUndefined();
      expect(await f.accounts.sessions.resume(second.id)).toBeDefined();
      expect(await f.accounts.sessions.resume('made-up')).toBeUndefined();
    });

    it('expires after idling, and is kept alive by use up to the absolute limit', async () => {
      const userId = await user();
      const idle = await f.accounts.sessions.start(userId);
      const busy = await f.accounts.sessions.start(userId);
      const steps = Math.ceil(maxMs / (idleMs / 2));
      for (let step = 1; step < steps; step += 1) {
        f.clock = T0 + (step * idleMs) / 2;
        expect(await f.accounts.sessions.resume(busy.id), `step ${step}`).toBeDefined();
      }
      expect(await f.accounts.sessions.resume(idle.id)).toBeUndefined();
      f.clock = T0 + maxMs;
      expect(await f.accounts.sessions.resume(busy.id)).toBeUndefined();
    });

    it('clears expired sessions away at the next sign-in, keeping live ones', async () => {
      const userId = await user();
      const stale = await f.accounts.sessions.start(userId);
      f.clock = T0 + idleMs / 2;
      const live = await f.accounts.sessions.start(userId);
      f.clock = T0 + idleMs;
      await f.accounts.sessions.start(userId);
      const hashes = (await Promise.all([stale, live].map((s) => f.stores.sessions.find(sha256(s.id))))).map(
        (record) => record !== undefined,
      );
      expect(hashes).toEqual([false, true]);
    });

    it('ends every session of a user, in every process', async () => {
      const userId = await user();
      const session = await f.accounts.sessions.start(userId);
      const again = await f.again();
      await again.sessions.endAllFor(userId);
      expect(await f.accounts.sessions.resume(session.id)).toBeUndefined();
    });
  });
}
