// `npm test`: every package's suite, one at a time, then one line per task with its result and time
// (issue #10). `--continue=dependencies-successful` runs every suite whose builds succeeded, so one
// failing suite never hides the others; a suite whose build failed is listed as not run. turbo's
// exit code is the command's, so any failure fails `npm test` at the end.
//
//   npm test                          # everything
//   npm test -- --filter=@pdn/sdk     # extra arguments go to turbo
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

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

function summaries() {
  return existsSync(RUNS) ? readdirSync(RUNS) : [];
}

const planned = plannedTasks();
const before = new Set(summaries());
const run = spawnSync('turbo', [...args, '--summarize'], { stdio: 'inherit' });
const exitCode = run.status ?? 1;

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
console.log(`Suites: ${passed} passed, ${suites.length - passed} failed`);
if (file === undefined) console.log('(turbo wrote no run summary: every task above is listed as not run)');
process.exit(exitCode);
