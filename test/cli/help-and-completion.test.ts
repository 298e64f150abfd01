// What a new user meets before any request: `--version` for a bug report, a usage error said in three
// lines at most (with a "did you mean" and the way to --help), each command's --help listing only the options it uses, and a
// bash completion that completes in a real bash.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPdn } from './run-pdn.js';

/** Whether a shell is installed; zsh and fish are optional, bash is everywhere. */
function has(shell: string): boolean {
  return spawnSync(shell, ['--version']).status === 0;
}

describe('help and version', () => {
  it('--version names pdn, Node.js and the platform', async () => {
    const run = await runPdn(['--version']);
    expect(run.code).toBe(0);
    expect(run.text.trim()).toBe(`pdn 1.0.0 (node ${process.version}, ${process.platform}-${process.arch})`);
  });

  // gh's habit: the error, a "did you mean", and one line naming --help; the whole help after it
  // pushed the error off the screen.
  it.each<[string, string[], string[]]>([
    [
      'no file',
      ['compress'],
      ["error: missing required argument 'files'", "Run 'pdn compress --help' for usage."],
    ],
    [
      'a mistyped option',
      ['compress', 'a.pdf', '--levl', 'high'],
      ["error: unknown option '--levl'", '(Did you mean --level?)', "Run 'pdn compress --help' for usage."],
    ],
    [
      'a mistyped command',
      ['compres', 'a.pdf'],
      ["error: unknown command 'compres'", '(Did you mean compress?)', "Run 'pdn --help' for usage."],
    ],
    [
      'a mistyped subcommand',
      ['jobs', 'lst'],
      ["error: unknown command 'lst'", '(Did you mean list?)', "Run 'pdn jobs --help' for usage."],
    ],
    [
      'a config key as people type it',
      ['config', 'set', 'apikey', 'pdn_test_0123456789abcdef0123456789abcdef'],
      [
        'Error: unknown config key "apikey"; did you mean api-key? The keys are: api-key, base-url.',
        "Run 'pdn config set --help' for usage.",
      ],
    ],
  ])(
    'a usage error (%s): the error, a suggestion, one line to --help; exit 2',
    async (_name, args, lines) => {
      const run = await runPdn(args);
      expect(run.code).toBe(2);
      expect(run.stderr.trimEnd().split('\n')).toEqual(lines);
      expect(run.text).toBe('');
    },
  );

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
      expect(complete('pdn', 'completion', '')).toEqual(['bash', 'zsh', 'fish']);
      // Jobs: the subcommands, their flags and choices, and the new flags of operations.
      expect(complete('pdn', 'jobs', '')).toEqual(['list', 'get', 'wait', 'cancel']);
      expect(complete('pdn', 'jobs', 'list', '--status', '')).toEqual([
        'queued',
        'running',
        'succeeded',
        'failed',
        'canceled',
      ]);
      expect(complete('pdn', 'merge', '--as')).toEqual(['--async']);
      expect(complete('pdn', 'ocr', '--re')).toEqual(['--resume']);
      // OCR of documents: a command beside ocr, with its own choices.
      expect(complete('pdn', 'oc')).toEqual(['ocr', 'ocr-pdf']);
      expect(complete('pdn', 'ocr-pdf', '--mode', '')).toEqual(['skip', 'redo', 'force']);
      expect(complete('pdn', 'ocr-pdf', '--output-t')).toEqual(['--output-type']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  /** Runs `code` in `shell` with the script `pdn completion <shell>` prints at `$SCRIPT`. */
  async function inShell(shell: 'zsh' | 'fish', code: string): Promise<string[]> {
    const script = await runPdn(['completion', shell]);
    expect(script.code, script.stderr).toBe(0);
    const dir = await mkdtemp(join(tmpdir(), `pdn-${shell}-`));
    try {
      await writeFile(join(dir, `pdn.${shell}`), script.stdout);
      const args = shell === 'zsh' ? ['-f', '-c', code] : ['--no-config', '-c', code];
      const result = spawnSync(shell, args, {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', HOME: dir, SCRIPT: join(dir, `pdn.${shell}`) },
      });
      expect(result.status, result.stderr).toBe(0);
      return result.stdout.split('\n').filter((line) => line !== '');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  // zsh runs the bash function through bashcompinit, which calls it as bash would (arrays from 0)
  // and leaves matching the word typed to zsh: the candidates are the command's, unfiltered.
  it.runIf(has('zsh'))(
    'zsh: sourced in a real zsh, the bash function offers the commands and choices',
    async () => {
      const complete = (words: string) =>
        inShell(
          'zsh',
          `source "$SCRIPT"; setopt ksharrays shwordsplit; COMP_WORDS=(${words}); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _pdn; print -l -- "\${COMPREPLY[@]}"`,
        );
      expect(await complete('pdn com')).toEqual(expect.arrayContaining(['compress', 'completion']));
      expect(await complete("pdn compress --level ''")).toEqual(['low', 'medium', 'high']);
      expect(await complete("pdn ocr-pdf --output-type ''")).toEqual(['pdf', 'pdfa']);
    },
  );

  it.runIf(has('fish'))(
    'fish: sourced in a real fish, `complete -C` offers the commands and choices',
    async () => {
      const complete = async (line: string) =>
        (await inShell('fish', `source $SCRIPT; complete -C '${line}'`)).map((entry) => entry.split('\t')[0]);
      expect(await complete('pdn com')).toEqual(['completion', 'compress']);
      expect(await complete('pdn compress --level ')).toEqual(['high', 'low', 'medium']);
      expect(await complete('pdn ocr-pdf --mode ')).toEqual(['force', 'redo', 'skip']);
      expect(await complete('pdn languages --co')).toEqual([]);
      expect(await complete('pdn jobs ')).toEqual(['cancel', 'get', 'list', 'wait']);
      expect(await complete('pdn jobs list --status ')).toEqual([
        'canceled',
        'failed',
        'queued',
        'running',
        'succeeded',
      ]);
      expect(await complete('pdn compress --asy')).toEqual(['--async']);
    },
  );

  it('refuses another shell (exit 2)', async () => {
    expect((await runPdn(['completion', 'tcsh'])).code).toBe(2);
  });
});
