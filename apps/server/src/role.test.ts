import { describe, expect, it } from 'vitest';
import type { BackendConfig } from './backends/backend-config.js';
import { ConfigError } from './config-error.js';
import { parseRole, partsOf } from './role.js';

const embedded: BackendConfig = { kind: 'embedded' };
const shared = { kind: 'shared' } as BackendConfig;

describe('parseRole', () => {
  it.each([
    ['no flag, embedded', undefined, embedded, 'all'],
    ['all, embedded', 'all', embedded, 'all'],
    ['api, shared', 'api', shared, 'api'],
    ['worker, shared', 'worker', shared, 'worker'],
  ] as const)('%s', (_, raw, backends, want) => {
    expect(parseRole(raw, backends)).toBe(want);
  });

  it.each([
    ['api, embedded', 'api', embedded, /--role api needs the shared backends/],
    ['worker, embedded', 'worker', embedded, /--role worker needs the shared backends/],
    ['unknown', 'both', shared, /--role must be one of all, api, worker, got 'both'/],
  ] as const)('refuses %s', (_, raw, backends, message) => {
    expect(() => parseRole(raw, backends)).toThrow(ConfigError);
    expect(() => parseRole(raw, backends)).toThrow(message);
  });
});

describe('partsOf', () => {
  it.each([
    ['all', { api: true, runner: true, sweeper: true }],
    ['api', { api: true, runner: false, sweeper: true }],
    ['worker', { api: false, runner: true, sweeper: false }],
  ] as const)('%s', (role, want) => {
    expect(partsOf(role)).toEqual(want);
  });
});
