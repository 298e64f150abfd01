// The room a claim gets as attempts start and end: the process's free slots, and the users and hosts
// at their cap skipped until one of their attempts ends.
import { describe, expect, it } from 'vitest';
import { AttemptSlots } from './attempt-slots.js';

const caps = { process: 5, user: 2, host: 3 };
const ada = (host: string) => ({ userId: 1, host });
const bob = (host: string) => ({ userId: 2, host });

describe('AttemptSlots', () => {
  const cases: [
    string,
    { take: ReturnType<typeof ada>[]; release?: ReturnType<typeof ada>[]; want: object },
  ][] = [
    ['nothing in flight', { take: [], want: { limit: 5, skipUsers: [], skipHosts: [] } }],
    ['a user at its cap', { take: [ada('a'), ada('b')], want: { limit: 3, skipUsers: [1], skipHosts: [] } }],
    [
      'a host at its cap, across users',
      { take: [ada('h'), bob('h'), bob('h')], want: { limit: 2, skipUsers: [2], skipHosts: ['h'] } },
    ],
    [
      'the process full',
      {
        take: [
          ada('a'),
          bob('b'),
          { userId: 3, host: 'c' },
          { userId: 4, host: 'd' },
          { userId: 5, host: 'e' },
        ],
        want: { limit: 0 },
      },
    ],
    [
      'an ended attempt frees its user and host',
      { take: [ada('h'), ada('h')], release: [ada('h')], want: { limit: 4, skipUsers: [], skipHosts: [] } },
    ],
  ];
  it.each(cases)('%s', (_name, { take, release = [], want }) => {
    const slots = new AttemptSlots(caps);
    for (const holder of take) slots.take(holder);
    for (const holder of release) slots.release(holder);
    expect(slots.room()).toMatchObject(want);
  });
});
