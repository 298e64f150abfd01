import { describe, expect, it } from 'vitest';
import { pickNext, shouldHandOn } from './fair-share.js';
import type { UserWork } from './job-store.js';

const user = (
  userId: number,
  plan: UserWork['plan'],
  queued: number,
  running: number,
  lastStart: number | null = null,
) => ({
  userId,
  plan,
  queued,
  running,
  lastStart,
});

describe('the fair order', () => {
  it.each([
    ['nobody waits', [user(1, 'free', 0, 2, 5)], 4, undefined],
    ['the only user who waits', [user(1, 'free', 0, 1, 5), user(2, 'free', 3, 0, 1)], 4, 2],
    [
      'fewest running for its weight: Premium with one before Free with one',
      [user(1, 'free', 1, 1, 1), user(2, 'premium', 1, 1, 2)],
      8,
      2,
    ],
    ['Free with none before Premium with one', [user(1, 'free', 1, 0, 9), user(2, 'premium', 1, 1, 1)], 8, 1],
    [
      'Enterprise with 4 before Premium with 1 (8 to 2)',
      [user(1, 'premium', 1, 1, 1), user(2, 'enterprise', 1, 3, 9)],
      8,
      2,
    ],
    ['a tie goes to whose last start is oldest', [user(1, 'free', 1, 1, 7), user(2, 'free', 1, 1, 3)], 8, 2],
    ['a tie goes first to who never started', [user(1, 'free', 1, 0, 3), user(2, 'free', 1, 0, null)], 8, 2],
    [
      'Free users hold at most half the slots while a paying user waits',
      [user(1, 'free', 5, 1, 1), user(2, 'free', 5, 1, 2), user(3, 'premium', 1, 4, 3)],
      4,
      3,
    ],
    [
      'but take every slot while nobody paying waits',
      [user(1, 'free', 5, 2, 1), user(2, 'free', 5, 1, 2), user(3, 'premium', 0, 1, 3)],
      4,
      2,
    ],
    [
      'one slot: half of it rounds down to none for Free while a paying user waits',
      [user(1, 'free', 1, 0, null), user(2, 'premium', 1, 0, 5)],
      1,
      2,
    ],
  ])('%s', (_, users, slots, expected) => {
    expect(pickNext(users as UserWork[], slots)).toBe(expected);
  });

  it('hands a slot on only to a user the order would start first', () => {
    const hog = user(1, 'free', 0, 2, 2);
    expect(shouldHandOn([hog], 1, 2)).toBe(false);
    expect(shouldHandOn([hog, user(2, 'free', 1, 0, null)], 1, 2)).toBe(true);
    // A Premium user with both slots and a Free user with none: the Free user gets one.
    expect(shouldHandOn([user(1, 'premium', 0, 2, 2), user(2, 'free', 1, 0, null)], 1, 2)).toBe(true);
    // Premium with 2 of 4, Free with 1 and another waiting: twice the weight keeps its two.
    expect(shouldHandOn([user(1, 'premium', 0, 2, 2), user(2, 'free', 1, 1, 1)], 1, 4)).toBe(false);
    expect(shouldHandOn([hog], 7, 2)).toBe(false);
  });
});
