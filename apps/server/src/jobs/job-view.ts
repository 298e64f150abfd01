// A stored job as the API shows it (openapi.yaml `Job`): timestamps in RFC 3339, the retention and
// whether it has passed, the poll hint while unfinished, and the result with its download URLs
// signed by this answer.
import type { Download, Job, JobProgress } from '@pdn/api-types';
import type { Operations } from '../operations/index.js';
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
