// A stored job as the API shows it (openapi.yaml `Job`): timestamps in RFC 3339, the retention and
// whether it has passed, the poll hint while unfinished, and the result with its download URLs
// signed by this answer.
import type { Download, Job, JobProgress } from '@pdn/api-types';
import type { Operations } from '../operations/index.js';
import type { Downloads } from '../storage/index.js';
import type { JobRecord } from './job-store.js';
import { POLL_AFTER_SECONDS, RESULT_RETENTION_MS } from './retention.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function jobView(
  record: JobRecord,
  operations: Operations,
  resign: (download: Download, keepUntil: number) => Download,
  now: number,
  progress?: JobProgress,
): Job {
  const retainedUntil = record.finishedAt === null ? null : record.finishedAt + RESULT_RETENTION_MS;
  const expired = retainedUntil !== null && now >= retainedUntil;
  const job: Job = {
    id: record.id,
    operation: record.operation,
    status: record.status,
    attempts: record.attempts,
    created_at: new Date(record.createdAt).toISOString(),
    started_at: iso(record.startedAt),
    finished_at: iso(record.finishedAt),
    retained_until: iso(retainedUntil),
    expired,
    poll_after_seconds: record.finishedAt === null ? POLL_AFTER_SECONDS : null,
    // What the job was for, as its owner named the files: a list of jobs is read by them.
    inputs: record.input.files.map((file) => ({ name: file.name, size: file.size })),
  };
  if (record.status === 'running' && progress !== undefined) job.progress = progress;
  if (record.status === 'succeeded' && retainedUntil !== null && !expired) {
    const until = retainedUntil;
    job.result = operations[record.operation].resign(record.result, (download) =>
      resign(download, until),
    ) as NonNullable<Job['result']>;
  }
  if (record.status === 'failed' && record.error) job.error = record.error;
  return job;
}

/** Jobs as this process shows them: download URLs signed by each answer, progress where it runs. */
export class JobViews {
  constructor(
    private readonly operations: Operations,
    private readonly downloads: Downloads,
    /** How far a job running in this process is; nothing for jobs run elsewhere. */
    private readonly progressOf: (id: string) => JobProgress | undefined = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  view(record: JobRecord): Job {
    return jobView(
      record,
      this.operations,
      (download, keepUntil) => this.downloads.resign(download, keepUntil),
      this.now(),
      this.progressOf(record.id),
    );
  }
}
