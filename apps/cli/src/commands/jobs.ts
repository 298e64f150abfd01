// `pdn jobs list|get|wait|cancel`: the jobs of `--async` (or of any call: a synchronous one is a job
// too), read, waited for and canceled through `/api/v1/jobs`, each shown with the files it was for. Reading,
// listing and canceling cost no call of the hourly limit (openapi.yaml, "Jobs").
import { join } from 'node:path';
import type { Download, Job, JobList, JobStatus, OperationResults } from '@pdn/sdk';
import type { ChalkInstance } from 'chalk';
import { type Command, Option } from 'commander';
import { type Client, CommandContext, type Io } from '../context.js';
import { deliver } from '../deliver.js';
import { describeJobInputs, describeOutput, formatJobProgress } from '../format.js';
import { examples } from '../help.js';
import { parsePositiveInt } from '../options.js';
import { writeOutput } from '../output-writer.js';
import type { ItemReport, OutputReport } from '../report.js';
import type { HumanView } from '../reporter.js';
import { eachItem, runOperations } from '../run-operations.js';
import { describeWhen } from '../when.js';

const STATUSES: readonly JobStatus[] = ['queued', 'running', 'succeeded', 'failed', 'canceled'];

interface ListFlags {
  status?: JobStatus;
  limit?: number;
  all?: boolean;
}

interface WaitFlags {
  output?: string;
  force?: boolean;
}

export function registerJobs(program: Command, io: Io): void {
  const jobs = program
    .command('jobs')
    .summary('list, inspect, wait for and cancel jobs')
    .description(
      'Jobs are the work the server does for compress, merge, split, ocr, ocr-pdf, images-to-pdf, pdf-to-images, html-to-pdf and office-to-pdf (--async prints their ids). ' +
        'Reading, listing and canceling them does not count against the hourly limit.',
    )
    .addHelpText(
      'after',
      examples(
        'pdn jobs list --status running',
        'pdn compress *.pdf --async --json | jq -r ".results[].job_id" | xargs pdn jobs wait -o small/',
        'pdn jobs cancel job_Q2xvdWRDb252ZXJ0MDAxYQ',
      ),
    );

  jobs
    .command('list')
    .summary('your recent jobs, newest first')
    .description('List your recent jobs, newest first (jobs are kept 24 hours after they finish).')
    .addOption(new Option('-s, --status <status>', 'only jobs in this state').choices(STATUSES))
    .option('-n, --limit <n>', 'jobs per page (server default 20, at most 100)', parsePositiveInt)
    .option('-a, --all', 'every page, not only the first')
    .action(async (flags: ListFlags, command: Command) => {
      const ctx = CommandContext.of(command, io);
      const client = await ctx.connect();
      await runOperations(ctx, {
        command: 'jobs list',
        items: [null],
        input: () => null,
        execute: eachItem(ctx, async (_item, progress) => {
          progress('asking the server');
          const params = {
            ...(flags.status === undefined ? {} : { status: flags.status }),
            ...(flags.limit === undefined ? {} : { limit: flags.limit }),
            signal: ctx.io.signal,
          };
          const found: Job[] = [];
          let last: JobList | undefined;
          for await (const page of client.pdn.jobs.pages(params)) {
            found.push(...page.jobs);
            last = page;
            if (flags.all !== true) break;
          }
          const data = { jobs: found.map((job) => ({ ...job })), next_cursor: last?.next_cursor ?? null };
          return { requestId: last?.requestId ?? null, data, outputs: [] };
        }),
        view: listView,
      });
    });

  jobs
    .command('get')
    .summary("jobs' state, progress and outcome")
    .description('Show the state of each job, its progress, and its outcome once it ended.')
    .argument('<ids...>', 'job ids (job_…)')
    .action(eachJob(io, 'jobs get', (client, id, signal) => client.pdn.jobs.get(id, { signal })));

  jobs
    .command('wait')
    .summary('wait for jobs to end and get their outputs')
    .description(
      'Wait for each job to end. Prints the signed URLs of its outputs (OCR: the text), or with -o DIR ' +
        'downloads them there under the names the server gives (OCR: <job id>.txt). Exits 1 if any job failed.',
    )
    .argument('<ids...>', 'job ids (job_…)')
    .option('-o, --output <dir>', 'download the outputs into this folder (created if missing)')
    .option('-f, --force', 'overwrite existing output files')
    .action(async (ids: string[], flags: WaitFlags, command: Command) => {
      const ctx = CommandContext.of(command, io);
      const client = await ctx.connect();
      await runOperations(ctx, {
        command: 'jobs wait',
        items: ids,
        input: (id) => id,
        execute: eachItem(ctx, async (id, progress) => {
          let operation: Job['operation'] | undefined;
          const result = await client.pdn.jobs.wait(id, {
            signal: ctx.io.signal,
            onProgress: (job) => {
              operation = job.operation;
              progress(formatJobProgress(job, 'working on'));
            },
          });
          const outputs = await collect(ctx, client, id, result, flags, progress);
          return { requestId: result.requestId, data: { operation, ...result }, outputs, jobId: id };
        }),
        view: waitView,
      });
    });

  jobs
    .command('cancel')
    .summary('cancel queued or running jobs')
    .description(
      'Cancel each job: a queued one never starts, a running one is stopped and its files removed. ' +
        'A job that already ended is left as it is.',
    )
    .argument('<ids...>', 'job ids (job_…)')
    .action(eachJob(io, 'jobs cancel', (client, id, signal) => client.pdn.jobs.cancel(id, { signal })));
}

/** The action of `jobs get` and `jobs cancel`: one call per id, the job it answers reported. */
function eachJob(
  io: Io,
  name: string,
  act: (client: Client, id: string, signal: AbortSignal) => Promise<Job>,
) {
  return async (ids: string[], _flags: object, command: Command): Promise<void> => {
    const ctx = CommandContext.of(command, io);
    const client = await ctx.connect();
    await runOperations(ctx, {
      command: name,
      items: ids,
      input: (id) => id,
      execute: eachItem(ctx, async (id) => {
        const job = await act(client, id, ctx.io.signal);
        return { requestId: job.requestId, data: { ...job }, outputs: [], jobId: job.id };
      }),
      view: jobView,
    });
  };
}

type AnyResult = OperationResults[keyof OperationResults];

/** A waited job's outputs: downloaded into `-o DIR`, else left on the server as URLs (OCR: its text). */
async function collect(
  ctx: CommandContext,
  client: Client,
  id: string,
  result: AnyResult,
  flags: WaitFlags,
  progress: (phase: string) => void,
): Promise<OutputReport[]> {
  const force = flags.force === true;
  // OCR of documents has text too, but its outputs are two files: the searchable PDF and its text.
  if ('text_download' in result) {
    const files = [
      { filename: result.filename, download: result.download },
      { filename: result.text_filename, download: result.text_download },
    ];
    return deliverFiles(ctx, client, files, flags, progress);
  }
  if ('text' in result) {
    if (flags.output === undefined) return [{ kind: 'stdout', bytes: Buffer.byteLength(result.text) }];
    const path = join(flags.output, `${id}.txt`);
    return [
      { kind: 'file', path, bytes: await writeOutput(path, result.text, { force, signal: ctx.io.signal }) },
    ];
  }
  return deliverFiles(ctx, client, filesOf(result), flags, progress);
}

/** Every file a job wrote: split's parts, PDF to images' pages (or its archive), or the one output. */
function filesOf(result: Exclude<AnyResult, { text: string }>): { filename: string; download: Download }[] {
  if ('parts' in result) return result.parts;
  if (!('pages' in result)) return [result];
  if (result.download !== undefined && result.filename !== undefined)
    return [{ filename: result.filename, download: result.download }];
  return result.pages.flatMap((page) =>
    page.download === undefined ? [] : [{ filename: page.filename, download: page.download }],
  );
}

/** Each file into `-o DIR` under the server's name, else reported as its URL. */
async function deliverFiles(
  ctx: CommandContext,
  client: Client,
  files: { filename: string; download: Download }[],
  flags: WaitFlags,
  progress: (phase: string) => void,
): Promise<OutputReport[]> {
  const outputs: OutputReport[] = [];
  for (const file of files) {
    const path = flags.output === undefined ? undefined : join(flags.output, file.filename);
    outputs.push(await deliver(ctx, client, file.download, path, flags.force === true, progress));
  }
  return outputs;
}

/** `job_…  compress  running 3/12  since 14:05 (2 minutes ago)`. */
function jobLine(job: Job, style: ChalkInstance): string {
  const colour =
    job.status === 'succeeded' ? style.green : job.status === 'failed' ? style.red : (text: string) => text;
  const state = formatJobProgress(job, job.status).replace(/( of|:)$/, '');
  const at = job.finished_at ?? job.started_at ?? job.created_at;
  const since = job.finished_at ? 'ended' : job.started_at ? 'started' : 'submitted';
  const expired = job.expired ? style.dim(' (outputs expired)') : '';
  const error = job.error ? `  ${style.red(job.error.message)}` : '';
  const inputs = describeJobInputs(job);
  const what = inputs === '' ? '' : `${inputs}  `;
  return `${job.id}  ${job.operation.padEnd(8)}  ${colour(state.padEnd(14))}  ${what}${style.dim(`${since} ${describeWhen(new Date(at), new Date())}`)}${expired}${error}`;
}

const listView: HumanView = {
  essential: true,
  succeeded(item, style) {
    const { jobs, next_cursor } = item.data as { jobs: Job[]; next_cursor: string | null };
    const lines = jobs.map((job) => jobLine(job, style));
    if (jobs.length === 0) lines.push(style.dim('no jobs'));
    if (next_cursor !== null) lines.push(style.dim('more: --all lists every page'));
    return lines.join('\n');
  },
};

const jobView: HumanView = {
  essential: true,
  succeeded: (item, style) => jobLine(item.data as Job, style),
};

const waitView: HumanView = {
  essential: true,
  succeeded(item: ItemReport, style) {
    const data = item.data as AnyResult & { operation?: string };
    if ('text' in data && item.outputs[0]?.kind === 'stdout') return data.text.replace(/\s+$/, '');
    const head = `${style.green('✔')} ${item.input} ${data.operation ?? ''}`.trimEnd();
    return item.outputs.map((output) => `${head} → ${describeOutput(output)}`).join('\n');
  },
};
