import { describe, expect, it } from 'vitest';
import { detectRuntime } from './runtime.js';

describe('detectRuntime', () => {
  const table: Array<
    [string, { given: Parameters<typeof detectRuntime>[0]; want: ReturnType<typeof detectRuntime> }]
  > = [
    [
      'Node',
      {
        given: { process: { versions: { node: '20.20.0' }, platform: 'linux' } },
        want: { userAgent: 'node/20.20.0 linux', streamsUploads: true },
      },
    ],
    [
      'Bun (which also says node)',
      {
        given: { process: { versions: { node: '22.6.0', bun: '1.2.0' }, platform: 'darwin' } },
        want: { userAgent: 'bun/1.2.0 darwin', streamsUploads: true },
      },
    ],
    [
      'Deno',
      {
        given: { Deno: { version: { deno: '2.1.0' }, build: { os: 'linux' } } },
        want: { userAgent: 'deno/2.1.0 linux', streamsUploads: true },
      },
    ],
    ['a browser: no process, no Deno', { given: {}, want: { userAgent: undefined, streamsUploads: false } }],
    [
      "a bundler's process shim without versions",
      { given: { process: {} }, want: { userAgent: undefined, streamsUploads: false } },
    ],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    expect(detectRuntime(given)).toEqual(want);
  });

  it('finds this Node by default', () => {
    expect(detectRuntime().userAgent).toBe(`node/${process.versions.node} ${process.platform}`);
  });
});
