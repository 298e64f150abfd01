import { describe, expect, it } from 'vitest';
import { type Persistence, persistenceOf } from './redis-persistence.js';

const info = (fields: Record<string, string>) =>
  `# Persistence\r\nloading:0\r\n${Object.entries(fields)
    .map(([name, value]) => `${name}:${value}`)
    .join('\r\n')}\r\n`;

describe('persistenceOf', () => {
  it.each<[string, { info: string; save: string | undefined; want: Persistence }]>([
    ['the append-only file', { info: info({ aof_enabled: '1' }), save: '', want: 'aof' }],
    ['a save policy', { info: info({ aof_enabled: '0' }), save: '3600 1 300 100', want: 'snapshots' }],
    [
      'nothing: save "" and no AOF',
      { info: info({ aof_enabled: '0', rdb_saves: '0' }), save: '', want: 'none' },
    ],
    [
      'CONFIG refused, snapshots taken since start',
      {
        info: info({ aof_enabled: '0', rdb_saves: '3', rdb_last_bgsave_time_sec: '0' }),
        save: undefined,
        want: 'snapshots',
      },
    ],
    [
      'CONFIG refused, nothing to go by',
      {
        info: info({ aof_enabled: '0', rdb_saves: '0', rdb_last_bgsave_time_sec: '-1' }),
        save: undefined,
        want: 'unknown',
      },
    ],
  ])('%s', (_name, { info: text, save, want }) => {
    expect(persistenceOf(text, save)).toBe(want);
  });
});
