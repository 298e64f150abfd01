// What a new user meets before any request (issue #19): `--version` for a bug report, a command's
// usage when its file is missing, each command's --help listing only the options it uses, and a
// bash completion that completes in a real bash.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPdn } from './run-pdn.js';

describe('help and version', () => {
  it('--version names pdn, Node.js and the platform', async () => {
    const run = await runPdn(['--version']);
    expect(run.code).toBe(0);
    expect(run.text.trim()).toBe(`pdn 1.0.0 (node ${process.version}, ${process.platform}-${process.arch})`);
  });

  it('`pdn compress` with no file prints its usage on stderr, exit 2', async () => {
    const run = await runPdn(['compress']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("missing required argument 'files'");
    expect(run.stderr).toContain('Usage: pdn compress [options] <files...>');
    expect(run.stderr).toContain('--skip-existing');
  });

  const applies: [string, { command: string[]; shows: string[]; hides: string[] }][] = [
    [
      'compress',
      { command: ['compress'], shows: ['--level', '--concurrency', '--api-key'], hides: ['--version'] },
    ],
    ['merge', { command: ['merge'], shows: ['--api-key', '--json'], hides: ['--concurrency', '--level'] }],
    ['languages', { command: ['languages'], shows: ['--base-url'], hides: ['--concurrency', '--output'] }],
    [
      'config get',
      { command: ['config', 'get'], shows: ['--json'], hides: ['--concurrency', '--api-key', '--quiet'] },
    ],
    ['completion', { command: ['completion'], shows: [], hides: ['--json', '--api-key'] }],
  ];
  it.each(applies)(
    '`pdn %s --help` lists only the options it uses',
    async (_name, { command, shows, hides }) => {
      const run = await runPdn([...command, '--help']);
      expect(run.code).toBe(0);
      for (const option of shows) expect(run.text).toContain(option);
      for (const option of hides) expect(run.text).not.toContain(option);
    },
  );
});

describe('pdn completion', () => {
  it('bash: sourced in a real bash, `pdn com<TAB>` offers compress and completion', async () => {
    const script = await runPdn(['completion', 'bash']);
    expect(script.code, script.stderr).toBe(0);
    const dir = await mkdtemp(join(tmpdir(), 'pdn-completion-'));
    try {
      await writeFile(join(dir, 'pdn.bash'), script.stdout);
      // What bash does on TAB: set COMP_WORDS/COMP_CWORD and call the function `complete` names.
      const complete = (...words: string[]) => {
        const probe = [
          `source ${JSON.stringify(join(dir, 'pdn.bash'))}`,
          `fn=$(complete -p pdn | sed -E 's/.*-F ([^ ]+) .*/\\1/')`,
          `COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}`,
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash array, not a template.
          'COMPREPLY=(); "$fn"; printf "%s\\n" "${COMPREPLY[@]}"',
        ].join('\n');
        const result = spawnSync('bash', ['--norc', '--noprofile', '-c', probe], { encoding: 'utf8' });
        expect(result.status, result.stderr).toBe(0);
        return result.stdout.split('\n').filter((line) => line !== '');
      };
      expect(complete('pdn', 'com')).toEqual(['compress', 'completion']);
      expect(complete('pdn', 'compress', '--le')).toEqual(['--level']);
      expect(complete('pdn', 'compress', '--level', '')).toEqual(['low', 'medium', 'high']);
      expect(complete('pdn', '--api-key', 'k', 'config', 'g')).toEqual(['get']);
      expect(complete('pdn', 'languages', '--con')).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each(['zsh', 'fish'])('%s: prints a script naming every command', async (shell) => {
    const run = await runPdn(['completion', shell]);
    expect(run.code, run.stderr).toBe(0);
    for (const command of ['compress', 'merge', 'split', 'ocr', 'languages', 'config']) {
      expect(run.text).toContain(command);
    }
  });

  it('refuses another shell (exit 2)', async () => {
    expect((await runPdn(['completion', 'tcsh'])).code).toBe(2);
  });
});
