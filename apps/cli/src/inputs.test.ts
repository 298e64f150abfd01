import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from './errors.js';
import { checkInputs, type Stdin, UploadSource } from './inputs.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-cli-inputs-'));
  await writeFile(join(dir, 'a.pdf'), '%PDF-');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const pipe = (): Stdin => new PassThrough();
const terminal = (): Stdin => Object.assign(new PassThrough(), { isTTY: true });

describe('checkInputs', () => {
  const cases: [string, { inputs: (dir: string) => string[]; stdin: () => Stdin; error: RegExp | null }][] = [
    ['an existing file', { inputs: (d) => [join(d, 'a.pdf')], stdin: pipe, error: null }],
    ['stdin from a pipe', { inputs: () => ['-'], stdin: pipe, error: null }],
    [
      'a missing file',
      { inputs: (d) => [join(d, 'nope.pdf')], stdin: pipe, error: /nope\.pdf: no such file/ },
    ],
    ['a folder', { inputs: (d) => [d], stdin: pipe, error: /: not a file/ }],
    ['stdin twice', { inputs: () => ['-', '-'], stdin: pipe, error: /only once/ }],
    ['stdin from a terminal', { inputs: () => ['-'], stdin: terminal, error: /terminal/ }],
    [
      'every problem at once',
      {
        inputs: (d) => [join(d, 'x.pdf'), join(d, 'a.pdf'), join(d, 'y.pdf')],
        stdin: pipe,
        error: /x\.pdf.*\n.*y\.pdf/,
      },
    ],
  ];
  it.each(cases)('%s', async (_name, { inputs, stdin, error }) => {
    const check = checkInputs(inputs(dir), stdin());
    if (error === null) await expect(check).resolves.toBeUndefined();
    else {
      await expect(check).rejects.toBeInstanceOf(UsageError);
      await expect(check).rejects.toThrow(error);
    }
  });
});

describe('UploadSource', () => {
  it('reads stdin once, however many times it is asked', async () => {
    const stdin = new PassThrough();
    stdin.end('%PDF-1.7 bytes');
    const source = new UploadSource(stdin);
    const [first, second] = await Promise.all([
      source.upload('-', 'stdin.pdf'),
      source.upload('-', 'stdin.pdf'),
    ]);
    expect(first).toMatchObject({ filename: 'stdin.pdf' });
    expect(second).toMatchObject({ filename: 'stdin.pdf' });
  });

  it('refuses empty stdin as a usage error', async () => {
    const stdin = new PassThrough();
    stdin.end();
    await expect(new UploadSource(stdin).upload('-', 'stdin.pdf')).rejects.toBeInstanceOf(UsageError);
  });
});
