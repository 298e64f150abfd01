import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config-error.js';
import { backendConfig } from './backend-config.js';

const SHARED = {
  PDN_DATABASE_URL: 'postgres://pdn@db.internal:5432/pdn',
  PDN_REDIS_URL: 'redis://cache.internal:6379',
  PDN_S3_BUCKET: 'pdn-outputs',
  PDN_S3_REGION: 'eu-central-1',
};

describe('backendConfig', () => {
  it('is embedded when no shared variable is set, whatever else is', () => {
    expect(backendConfig({ AWS_ACCESS_KEY_ID: 'a', PDN_DATA_DIR: '/srv' }, false)).toEqual({
      kind: 'embedded',
    });
  });

  const accepted: [string, { env: Record<string, string>; want: Record<string, unknown> }][] = [
    [
      'the whole set, AWS S3 with the default credentials',
      {
        env: SHARED,
        want: {
          kind: 'shared',
          database: { url: SHARED.PDN_DATABASE_URL, poolSize: 3, preparedStatements: true },
          redisUrl: SHARED.PDN_REDIS_URL,
          redisKeyPrefix: 'pdn:',
          jobLockMs: 15_000,
          s3: { bucket: 'pdn-outputs', region: 'eu-central-1', forcePathStyle: false },
        },
      },
    ],
    ['a shorter job lock', { env: { ...SHARED, PDN_JOB_LOCK_MS: '5000' }, want: { jobLockMs: 5000 } }],
    [
      'a pool size, and no prepared statements for a pooler in transaction mode',
      {
        env: { ...SHARED, PDN_DATABASE_POOL_SIZE: '8', PDN_DATABASE_PREPARED_STATEMENTS: 'false' },
        want: { database: { url: SHARED.PDN_DATABASE_URL, poolSize: 8, preparedStatements: false } },
      },
    ],
    [
      'an S3-compatible endpoint, path-style, with keys',
      {
        env: {
          ...SHARED,
          PDN_S3_ENDPOINT: 'http://127.0.0.1:9000',
          PDN_S3_FORCE_PATH_STYLE: 'true',
          AWS_ACCESS_KEY_ID: 'id',
          AWS_SECRET_ACCESS_KEY: 'secret',
        },
        want: {
          s3: {
            endpoint: 'http://127.0.0.1:9000',
            bucket: 'pdn-outputs',
            region: 'eu-central-1',
            forcePathStyle: true,
            credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
          },
        },
      },
    ],
  ];
  it.each(accepted)('accepts %s', (_name, { env, want }) => {
    expect(backendConfig(env, true)).toMatchObject(want);
  });

  const refused: [string, { env: Record<string, string>; secret?: boolean; message: RegExp }][] = [
    [
      'Redis alone',
      {
        env: { PDN_REDIS_URL: 'redis://127.0.0.1' },
        message: /PDN_REDIS_URL is set.*needs PDN_DATABASE_URL, PDN_S3_BUCKET, PDN_S3_REGION \(/,
      },
    ],
    [
      'PostgreSQL and Redis with a local outputs folder',
      {
        env: { PDN_DATABASE_URL: SHARED.PDN_DATABASE_URL, PDN_REDIS_URL: SHARED.PDN_REDIS_URL },
        message: /needs PDN_S3_BUCKET, PDN_S3_REGION \(/,
      },
    ],
    ['no shared signing secret', { env: SHARED, secret: false, message: /needs PDN_SIGNING_SECRET/ }],
    [
      'an empty pool',
      {
        env: { ...SHARED, PDN_DATABASE_POOL_SIZE: '0' },
        message: /PDN_DATABASE_POOL_SIZE must be an integer from 1/,
      },
    ],
    [
      'prepared statements neither on nor off',
      {
        env: { ...SHARED, PDN_DATABASE_PREPARED_STATEMENTS: 'no' },
        message: /PDN_DATABASE_PREPARED_STATEMENTS must be true or false, got 'no'/,
      },
    ],
    [
      'a job lock too short to renew',
      {
        env: { ...SHARED, PDN_JOB_LOCK_MS: '500' },
        message: /PDN_JOB_LOCK_MS must be an integer from 2000 to 600000, got '500'/,
      },
    ],
    [
      'a database URL of another kind',
      {
        env: { ...SHARED, PDN_DATABASE_URL: 'mysql://x' },
        message: /PDN_DATABASE_URL must be a URL starting postgres:\/\/… or postgresql:\/\/…/,
      },
    ],
    [
      'a key id without its secret',
      { env: { ...SHARED, AWS_ACCESS_KEY_ID: 'id' }, message: /AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/ },
    ],
    [
      'a path style neither true nor false',
      { env: { ...SHARED, PDN_S3_FORCE_PATH_STYLE: 'yes' }, message: /PDN_S3_FORCE_PATH_STYLE must be/ },
    ],
  ];
  it.each(refused)('refuses %s, saying what is wrong', (_name, { env, secret, message }) => {
    const attempt = () => backendConfig(env, secret ?? true);
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(message);
  });
});
