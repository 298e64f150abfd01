// The SDK and the CLI as people get them: `npm pack` of each, installed into an empty
// project and globally, with no registry to fall back on (a dead one on 127.0.0.1:9, and --offline).
// The packed SDK must type-check on its own (a packed SDK that still named the unpublished
// @pdn/api-types did not), and both must work against the real server.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../src/harness/server.js';

const execFileAsync = promisify(execFile);
const require = createRequire(import.meta.url);
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The repository's own TypeScript and Node types: the consumer's toolchain, not what is tested. */
const TSC = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
const TYPE_ROOTS = dirname(dirname(require.resolve('@types/node/package.json')));
const NO_REGISTRY = ['--offline', '--registry=http://127.0.0.1:9', '--no-audit', '--no-fund'];

/**
 * The environment without what the `npm test` running this file set for itself (npm_config_*, which
 * would configure the npm commands below) or for the server (PDN_*).
 */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(npm_|PDN_)/i.test(name)) env[name] = value;
  }
  return { ...env, ...extra };
}

async function run(file: string, args: string[], cwd: string, env = cleanEnv()) {
  try {
    return await execFileAsync(file, args, { cwd, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${file} ${args.join(' ')} failed: ${failed.message}\n${failed.stdout}${failed.stderr}`);
  }
}

let root = '';
let project = '';
let globalPrefix = '';
let server: TestServer | undefined;
let key = '';

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pdn-pack-'));
  project = join(root, 'project');
  globalPrefix = join(root, 'global');
  await mkdir(project);
  const packed = await run(
    'npm',
    ['pack', '--workspace=@pdn/sdk', '--workspace=@pdn/cli', `--pack-destination=${root}`, '--json'],
    REPO_ROOT,
  );
  const tarballs = (JSON.parse(packed.stdout) as { filename: string }[]).map(({ filename }) =>
    join(root, filename),
  );
  expect(tarballs).toHaveLength(2);
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  await run('npm', ['install', ...NO_REGISTRY, ...tarballs], project);
  const cli = tarballs.find((path) => path.includes('pdn-cli-')) ?? '';
  await run('npm', ['install', '--global', `--prefix=${globalPrefix}`, ...NO_REGISTRY, cli], root);
  server = await startServer();
  key = await server.createKey({ user: 'packed', plan: 'premium' });
});

afterAll(async () => {
  await server?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

const baseUrl = () => server?.baseUrl ?? '';

describe('the packed SDK and CLI', () => {
  it('install into an empty project with no registry, and bring no dependency with them', async () => {
    const installed = (await readdir(join(project, 'node_modules'))).filter((name) => !name.startsWith('.'));
    expect(installed).toEqual(['@pdn']);
    expect((await readdir(join(project, 'node_modules', '@pdn'))).sort()).toEqual(['cli', 'sdk']);
  });

  it('pdn --version works from the project and from a global install', async () => {
    const { version } = JSON.parse(await readFile(join(REPO_ROOT, 'apps/cli/package.json'), 'utf8'));
    for (const pdn of [join(project, 'node_modules/.bin/pdn'), join(globalPrefix, 'bin/pdn')]) {
      // `pdn 1.0.0 (node v20.20.0, linux-x64)`.
      expect((await run(pdn, ['--version'], root)).stdout.trim()).toBe(
        `pdn ${version} (node ${process.version}, ${process.platform}-${process.arch})`,
      );
    }
  });

  it('the globally installed pdn talks to the server', async () => {
    const env = cleanEnv({ PDN_API_KEY: key, PDN_BASE_URL: baseUrl(), XDG_CONFIG_HOME: root });
    const { stdout } = await run(join(globalPrefix, 'bin/pdn'), ['languages', '--quiet'], root, env);
    expect(stdout).toMatch(/^eng\b/m);
  });

  it('a TypeScript program type-checks against the installed SDK alone and makes a typed call', async () => {
    await writeFile(
      join(project, 'main.ts'),
      [
        "import { type LanguagesResult, Pdn } from '@pdn/sdk';",
        '',
        "const pdn = new Pdn({ apiKey: process.env.PDN_API_KEY ?? '', baseUrl: process.env.PDN_BASE_URL ?? '' });",
        'const result: LanguagesResult = await pdn.languages();',
        'console.log(JSON.stringify({ codes: result.languages.map((language) => language.code) }));',
        '',
        '// Types, not `any`: were they missing, this directive would be unused, itself an error.',
        'export const wrongLevel = () =>',
        "  // @ts-expect-error 'extreme' is not a CompressionLevel",
        "  pdn.compress({ file: new Uint8Array(), level: 'extreme' });",
        '',
      ].join('\n'),
    );
    const tsconfig = {
      compilerOptions: {
        strict: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        // Check the SDK's declarations too: a dangling import in them fails here.
        skipLibCheck: false,
        outDir: 'dist',
        types: ['node'],
        typeRoots: [TYPE_ROOTS],
      },
      files: ['main.ts'],
    };
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
    await run(process.execPath, [TSC, '-p', project], project);
    const env = cleanEnv({ PDN_API_KEY: key, PDN_BASE_URL: baseUrl() });
    const { stdout } = await run(process.execPath, [join(project, 'dist/main.js')], project, env);
    expect(JSON.parse(stdout).codes).toContain('eng');
  });
});
