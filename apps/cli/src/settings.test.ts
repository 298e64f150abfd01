import { describe, expect, it } from 'vitest';
import type { ConfigValues } from './config-file.js';
import { type Connection, type ConnectionFlags, resolveConnection } from './settings.js';

describe('resolveConnection', () => {
  const cases: [
    string,
    { flags: ConnectionFlags; env: NodeJS.ProcessEnv; config: ConfigValues; want: Connection },
  ][] = [
    [
      'nothing set',
      {
        flags: {},
        env: {},
        config: {},
        want: { apiKey: undefined, baseUrl: undefined, apiKeySource: 'default', baseUrlSource: 'default' },
      },
    ],
    [
      'the flag wins over env and file',
      {
        flags: { apiKey: 'flag', baseUrl: 'http://flag' },
        env: { PDN_API_KEY: 'env', PDN_BASE_URL: 'http://env' },
        config: { api_key: 'file', base_url: 'http://file' },
        want: { apiKey: 'flag', baseUrl: 'http://flag', apiKeySource: 'flag', baseUrlSource: 'flag' },
      },
    ],
    [
      'env wins over the file',
      {
        flags: {},
        env: { PDN_API_KEY: 'env' },
        config: { api_key: 'file', base_url: 'http://file' },
        want: { apiKey: 'env', baseUrl: 'http://file', apiKeySource: 'env', baseUrlSource: 'config' },
      },
    ],
    [
      'an empty env value falls through to the file',
      {
        flags: {},
        env: { PDN_API_KEY: '' },
        config: { api_key: 'file' },
        want: { apiKey: 'file', baseUrl: undefined, apiKeySource: 'config', baseUrlSource: 'default' },
      },
    ],
    [
      'values are trimmed (a key pasted with a newline)',
      {
        flags: { apiKey: ' key\n' },
        env: {},
        config: {},
        want: { apiKey: 'key', baseUrl: undefined, apiKeySource: 'flag', baseUrlSource: 'default' },
      },
    ],
  ];
  it.each(cases)('%s', (_name, { flags, env, config, want }) => {
    expect(resolveConnection(flags, env, config)).toEqual(want);
  });
});
