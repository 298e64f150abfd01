import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunIdentity, RunState } from './run-state.js';

const identity: RunIdentity = {
  command: 'compress',
  inputs: ['a.pdf', 'b.pdf'],
  options: { level: 'high' },
};

describe('RunState.for: one file per run', () => {
  const name = (changes: Partial<RunIdentity>) => RunState.for('/out', { ...identity, ...changes }).path;
  const cases: [string, { given: Partial<RunIdentity>; same: boolean }][] = [
    ['the same run', { given: {}, same: true }],
    [
      'the same files named from elsewhere',
      { given: { inputs: [join(process.cwd(), 'a.pdf'), 'b.pdf'] }, same: true },
    ],
    ['another level', { given: { options: { level: 'low' } }, same: false }],
    ['other inputs', { given: { inputs: ['a.pdf'] }, same: false }],
    ['another command', { given: { command: 'ocr' }, same: false }],
  ];
  it.each(cases)('%s', (_name, { given, same }) => {
    expect(name(given) === name({})).toBe(same);
  });

  it('is a hidden file in the folder given, named for the command', () => {
    expect(name({})).toMatch(/^\/out\/\.pdn-run-compress-[0-9a-f]{16}\.json$/);
  });
});

describe('RunState', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdn-cli-run-state-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a folder without a state file has nothing to resume', async () => {
    const state = RunState.for(dir, identity);
    expect(await state.load()).toBe(false);
    expect(state.left).toBe(0);
  });

  it('records each job as submitted, reads it back, and tells collected inputs apart', async () => {
    const run = RunState.for(join(dir, 'not-yet'), identity);
    await run.record('a.pdf', 'job_a');
    await run.record('b.pdf', 'job_b');
    await run.collected('a.pdf');

    const resumed = RunState.for(join(dir, 'not-yet'), identity);
    expect(await resumed.load()).toBe(true);
    expect(resumed.left).toBe(1);
    expect(resumed.wasCollected('a.pdf')).toBe(true);
    expect(resumed.jobOf('a.pdf')).toBeUndefined();
    expect(resumed.jobOf('b.pdf')).toBe('job_b');
    expect(resumed.jobOf('c.pdf')).toBeUndefined();
  });

  it('keeps the key of a submission before its answer, then the job the answer names', async () => {
    const run = RunState.for(dir, identity);
    await run.submitting('a.pdf', 'key-a');
    await run.submitting('b.pdf', 'key-b');
    await run.record('b.pdf', 'job_b');

    // Killed here: a.pdf was sent (or about to be) and its answer never recorded.
    const resumed = RunState.for(dir, identity);
    expect(await resumed.load()).toBe(true);
    expect(resumed.left).toBe(2);
    expect([resumed.unansweredKey('a.pdf'), resumed.jobOf('a.pdf')]).toEqual(['key-a', undefined]);
    expect([resumed.unansweredKey('b.pdf'), resumed.jobOf('b.pdf')]).toEqual([undefined, 'job_b']);
    await resumed.forget('a.pdf');
    expect(resumed.unansweredKey('a.pdf')).toBeUndefined();
  });

  it("merge's list of inputs is one key", async () => {
    const run = RunState.for(dir, identity);
    await run.record(['a.pdf', 'b.pdf'], 'job_ab');
    expect(run.jobOf(['a.pdf', 'b.pdf'])).toBe('job_ab');
    expect(run.jobOf(['b.pdf', 'a.pdf'])).toBeUndefined();
  });

  it('writes whole files only (no temp file left), and clear removes it', async () => {
    const run = RunState.for(dir, identity);
    await Promise.all(['a', 'b', 'c', 'd'].map((name) => run.record(`${name}.pdf`, `job_${name}`)));
    expect(await readdir(dir)).toEqual([run.path.slice(dir.length + 1)]);
    const saved = JSON.parse(await readFile(run.path, 'utf8')) as { jobs: object };
    expect(Object.keys(saved.jobs)).toHaveLength(4);
    await run.forget('a.pdf');
    expect(run.left).toBe(3);
    // A run killed mid-write leaves a temp file beside the state; the run that ends removes it too.
    await writeFile(`${run.path}.dead.tmp`, '{"ver');
    await run.clear();
    expect(await readdir(dir)).toEqual([]);
  });

  it('a file of another shape is not resumed from', async () => {
    await writeFile(RunState.for(dir, identity).path, '{"version": 7}');
    expect(await RunState.for(dir, identity).load()).toBe(false);
  });
});
