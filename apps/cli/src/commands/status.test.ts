import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import type { ItemReport } from '../report.js';
import { statusView } from './status.js';

const NOW = Date.parse('2026-01-01T12:18:00Z');
const plain = new Chalk({ level: 0 });
const key = { id: 'key_0123456789ab', kind: 'test' };

function lines(data: object): string {
  return statusView(() => NOW).succeeded({ data } as ItemReport, plain);
}

describe('pdn status, for a person', () => {
  const table: [string, { given: object; want: string }][] = [
    [
      'a Free user with calls left',
      {
        given: {
          plan: 'free',
          requests_per_hour: 10,
          used: 3,
          remaining: 7,
          next_slot_at: '2026-01-01T13:00:00.000Z',
          key,
        },
        want: [
          'Plan      Free (10 calls per hour)',
          'Used      3 in the last hour',
          'Left      7',
          'Next slot in 42 min (13:00 UTC)',
          'Key       key_0123456789ab (test)',
        ].join('\n'),
      },
    ],
    [
      'Enterprise with an empty window',
      {
        given: {
          plan: 'enterprise',
          requests_per_hour: null,
          used: 0,
          remaining: null,
          next_slot_at: null,
          key,
        },
        want: [
          'Plan      Enterprise (no hourly limit)',
          'Used      0 in the last hour',
          'Left      unlimited',
          'Next slot now',
          'Key       key_0123456789ab (test)',
        ].join('\n'),
      },
    ],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    expect(lines(given)).toBe(want);
  });
});
