import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { detectTools } from './tools.js';

const qpdfVersion = spawnSync('qpdf', ['--version'], { encoding: 'utf8' }).stdout?.match(
  /qpdf version (\S+)/,
)?.[1];
if (qpdfVersion === undefined) console.warn('qpdf is not installed: the qpdf detection test is skipped');

describe('detectTools', () => {
  const originalPath = process.env.PATH;
  const dirs: string[] = [];
  afterEach(async () => {
    process.env.PATH = originalPath;
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  async function fakeBin(script: string, name = 'qpdf'): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'pdn-tools-'));
    dirs.push(dir);
    const path = join(dir, name);
    await writeFile(path, `#!/bin/sh\n${script}\n`);
    await chmod(path, 0o755);
    return dir;
  }

  it.skipIf(qpdfVersion === undefined)(
    'finds the installed qpdf with its absolute path and version',
    async () => {
      const tools = await detectTools();
      expect(tools.qpdf?.version).toBe(qpdfVersion);
      expect(tools.qpdf?.path).toMatch(/^\/.*\/qpdf$/);
    },
  );

  it('reports nothing when no tool is on PATH', async () => {
    process.env.PATH = await mkdtemp(join(tmpdir(), 'pdn-empty-path-'));
    dirs.push(process.env.PATH);
    expect(await detectTools()).toEqual({});
  });

  it('reads the version a binary prints', async () => {
    const dir = await fakeBin('echo "qpdf version 99.1.2"');
    process.env.PATH = dir;
    expect(await detectTools()).toEqual({ qpdf: { path: join(dir, 'qpdf'), version: '99.1.2' } });
  });

  it('asks pdftotext with -v, since it reads --version as a file name', async () => {
    const dir = await fakeBin(
      '[ "$1" = "-v" ] || exit 99; echo "pdftotext version 22.12.0" >&2',
      'pdftotext',
    );
    process.env.PATH = dir;
    expect(await detectTools()).toEqual({ pdftotext: { path: join(dir, 'pdftotext'), version: '22.12.0' } });
  });

  it.each(['pdftoppm', 'pdfimages'])('asks %s with -v too', async (binary) => {
    const dir = await fakeBin(`[ "$1" = "-v" ] || exit 99; echo "${binary} version 22.12.0" >&2`, binary);
    process.env.PATH = dir;
    expect(await detectTools()).toEqual({ [binary]: { path: join(dir, binary), version: '22.12.0' } });
  });

  it.each([
    ['soffice', 'LibreOffice 7.4.7.2 40(Build:2)', 'libreoffice', '7.4.7.2'],
    [
      'chromium',
      'Chromium 120.0.6099.224 built on Debian 12.4, running on Debian 12.8',
      'chromium',
      '120.0.6099.224',
    ],
  ])('reads the version the converter %s prints', async (binary, said, name, version) => {
    const dir = await fakeBin(`[ "$1" = "--version" ] || exit 99; echo "${said}"`, binary);
    process.env.PATH = dir;
    expect(await detectTools()).toEqual({ [name]: { path: join(dir, binary), version } });
  });

  it('takes the first python3 on PATH that imports uno', async () => {
    const pyenv = await fakeBin('echo "No module named uno" >&2; exit 1', 'python3');
    const debian = await fakeBin('[ "$1" = "-c" ] || exit 99; echo "3.11.2"', 'python3');
    process.env.PATH = `${pyenv}:${debian}`;
    expect(await detectTools()).toEqual({ pyuno: { path: join(debian, 'python3'), version: '3.11.2' } });
  });

  it.each([
    ['exits non-zero', 'echo "qpdf version 1.0"; exit 2'],
    ['prints no version', 'echo "hello"'],
  ])('ignores a binary that %s', async (_name, script) => {
    process.env.PATH = await fakeBin(script);
    expect(await detectTools()).toEqual({});
  });
});
