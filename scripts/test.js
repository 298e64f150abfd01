// `npm test`: every package's suite, one at a time, then one line per task with its result and time.
// `--continue=dependencies-successful` runs every suite whose builds succeeded, so one
// failing suite never hides the others; a suite whose build failed is listed as not run. turbo's
// exit code is the command's, so any failure fails `npm test` at the end. A failed suite's own
// account of its failures (vitest's "Failed Tests" section) is repeated after the table: CI keeps only
// the tail of a long run, and the suites that ran after a failure would push it out of view.
//
//   npm test                          # everything
//   npm test -- --filter=@pdn/sdk     # extra arguments go to turbo
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const RUNS = '.turbo/runs';
const args = [
  'run',
  'test',
  '--concurrency=1',
  '--continue=dependencies-successful',
  ...process.argv.slice(2),
];

/** Tasks turbo would run, in graph order: `--dry=json` plans without running anything. */
function plannedTasks() {
  const dry = spawnSync('turbo', [...args, '--dry=json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (dry.status !== 0) throw new Error(`turbo --dry=json failed:\n${dry.stderr}`);
  // Tasks without a script of that name are placeholders turbo keeps only for ordering.
  return JSON.parse(dry.stdout).tasks.filter((task) => task.command !== '<NONEXISTENT>');
}

/**
 * What each task's vitest printed from its failure section on ("Failed Tests", "Failed Suites",
 * "Unhandled Errors") to its closing counts, from turbo's output, whose lines carry the task's name
 * ("@pdn/e2e:test: ..."). Bounded per task, so a flood of failures cannot fill the memory.
 */
class FailureReports {
  static MAX_LINES = 300;
  static START = /⎯{3,} (Failed Tests|Failed Suites|Unhandled Errors?) \d+/;
  #lines = new Map();
  #open = new Set();
  #partial = '';

  add(chunk) {
    const lines = (this.#partial + chunk).split('\n');
    this.#partial = lines.pop();
    for (const line of lines) this.#line(line);
  }

  #line(line) {
    const match = /^(\S+:test): ?(.*)$/.exec(stripVTControlCharacters(line));
    if (match === null) return;
    const [, task, text] = match;
    if (FailureReports.START.test(text)) this.#open.add(task);
    if (!this.#open.has(task)) return;
    const kept = this.#lines.get(task) ?? [];
    if (kept.length < FailureReports.MAX_LINES) kept.push(text);
    else if (kept.length === FailureReports.MAX_LINES) kept.push('[cut: the rest is in the log above]');
    this.#lines.set(task, kept);
    if (/^\s*Test Files\s/.test(text)) this.#open.delete(task);
  }

  /** The kept lines of `task` ("@pdn/e2e:test"), or none. */
  of(task) {
    return this.#lines.get(task) ?? [];
  }
}

/** Runs turbo, its output passed through as it comes and read for failure reports; its exit code. */
function runTurbo(turboArgs, reports) {
  return new Promise((resolve) => {
    const child = spawn('turbo', turboArgs, { stdio: ['inherit', 'pipe', 'pipe'] });
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      process.stdout.write(chunk);
      reports.add(chunk);
    });
    child.stderr.pipe(process.stderr);
    child.on('error', () => resolve(1));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

function summaries() {
  return existsSync(RUNS) ? readdirSync(RUNS) : [];
}

const planned = plannedTasks();
const before = new Set(summaries());
const failureReports = new FailureReports();
const exitCode = await runTurbo([...args, '--summarize'], failureReports);

// The summary of this run is the one file that was not there before; it is removed once read, so
// the folder does not grow by one file per `npm test`.
const file = summaries().find((name) => !before.has(name));
const executed = new Map();
if (file !== undefined) {
  const path = join(RUNS, file);
  for (const task of JSON.parse(readFileSync(path, 'utf8')).tasks) executed.set(task.taskId, task);
  rmSync(path);
}

function outcome(task) {
  const done = executed.get(task.taskId);
  if (done?.execution === undefined)
    return { result: 'not run', seconds: '-', start: Number.POSITIVE_INFINITY };
  const { startTime, endTime, exitCode } = done.execution;
  const seconds = ((endTime - startTime) / 1000).toFixed(1);
  const result = exitCode !== 0 ? 'FAILED' : done.cache.status === 'HIT' ? 'cached' : 'passed';
  return { result, seconds, start: startTime };
}

// In the order they ran; those that did not run last.
const rows = planned
  .map((task) => ({ name: `${task.package} ${task.task}`, task, ...outcome(task) }))
  .sort((a, b) => a.start - b.start);
const width = Math.max(...rows.map((row) => row.name.length));
console.log('\nnpm test: each task, its result and seconds (not run: a build it needs failed)');
for (const row of rows)
  console.log(`  ${row.name.padEnd(width)}  ${row.result.padEnd(7)}  ${row.seconds.padStart(6)}`);
const suites = rows.filter((row) => row.task.task === 'test');
const passed = suites.filter((row) => row.result === 'passed').length;
// The one closing line CI reads ("N passed, N failed"); a suite that did not run counts as failed.
for (const row of suites.filter((row) => row.result === 'FAILED')) {
  const report = failureReports.of(`${row.task.package}:test`);
  if (report.length === 0) continue;
  console.log(`\n${row.name}: what failed, as the suite reported it`);
  for (const line of report) console.log(`  ${line}`);
}
console.log(`Suites: ${passed} passed, ${suites.length - passed} failed`);
if (file === undefined) console.log('(turbo wrote no run summary: every task above is listed as not run)');
process.exit(exitCode);
