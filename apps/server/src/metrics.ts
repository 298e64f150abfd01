// What the server counts for Prometheus, in one process-wide registry: a process is what
// Prometheus scrapes, and the tool runner and the HTTP layer share it without threading it through.
// Names follow Prometheus conventions (base units, `_total` counters); labels stay bounded (route
// patterns, never paths; tool names, never arguments).
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'pdn_' });

export const httpRequests = new Counter({
  name: 'pdn_http_requests_total',
  help: 'Requests answered, by route pattern, method and status.',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'pdn_http_request_duration_seconds',
  help: 'Time from a request arriving to its answer being ready, by route pattern.',
  labelNames: ['route'] as const,
  // From a health check to a long OCR of a document.
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [registry],
});

export const httpBytes = new Counter({
  name: 'pdn_http_bytes_total',
  help: 'Bytes on the wire, head and body, by route pattern and direction (in: request, out: response).',
  labelNames: ['route', 'direction'] as const,
  registers: [registry],
});

export const jobsQueued = new Gauge({
  name: 'pdn_jobs_queued',
  help: 'Jobs waiting to start in the job queue (every process of the deployment shares it), by operation and mode; read at the scrape, absent where none waits.',
  labelNames: ['operation', 'mode'] as const,
  registers: [registry],
});

export const jobsRunning = new Gauge({
  name: 'pdn_jobs_running',
  help: 'Jobs running in this process now, by operation and mode (sync: a request waits; async: queued).',
  labelNames: ['operation', 'mode'] as const,
  registers: [registry],
});

export const jobsFinished = new Counter({
  name: 'pdn_jobs_finished_total',
  help: 'Jobs ended by this process, by operation, mode and outcome (succeeded, failed, canceled).',
  labelNames: ['operation', 'mode', 'outcome'] as const,
  registers: [registry],
});

export const jobQueueWait = new Histogram({
  name: 'pdn_job_queue_wait_seconds',
  help: 'Time from a job joining the queue (stored, or queued again after handing its slot on or losing its process) to a slot starting it, by operation and mode.',
  labelNames: ['operation', 'mode'] as const,
  buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900],
  registers: [registry],
});

export const admissionRefusals = new Counter({
  name: 'pdn_admission_refusals_total',
  help: "Calls refused without being run, by error code (rate_limited, too_many_jobs, server_busy) and, for server_busy, why: wait (the queue), calls or bytes (the user's calls in progress), deadline (no slot within PDN_MAX_SYNC_WAIT).",
  labelNames: ['code', 'reason'] as const,
  registers: [registry],
});

export const syncCallsInProgress = new Gauge({
  name: 'pdn_sync_calls_in_progress',
  help: 'Synchronous calls this process has admitted and not yet answered: uploading, waiting for a slot or running.',
  registers: [registry],
});

export const syncCallWait = new Histogram({
  name: 'pdn_sync_call_expected_wait_seconds',
  help: 'The wait for a slot admission expected for each synchronous call it looked at (admitted or refused server_busy).',
  buckets: [0.01, 0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120],
  registers: [registry],
});

export const rateLimitDecision = new Histogram({
  name: 'pdn_rate_limit_decision_seconds',
  help: 'Time to decide one request against its hourly limit in the store that keeps the limits (count the rolling hour, record the request).',
  // Around the 2 ms target of a rate-limit decision: sub-millisecond for an embedded or nearby store.
  buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
  registers: [registry],
});

export const roleInfo = new Gauge({
  name: 'pdn_role_info',
  help: 'Always 1, labelled with the role this process plays (pdn-server start --role).',
  labelNames: ['role'] as const,
  registers: [registry],
});

export const ocrWorkers = new Gauge({
  name: 'pdn_ocr_workers',
  help: 'OCR workers alive or starting, by pool.',
  labelNames: ['pool'] as const,
  registers: [registry],
});

export const toolRuns = new Counter({
  name: 'pdn_tool_runs_total',
  help: 'External tool runs, by tool and result (ok, failed: non-zero exit, timeout, aborted).',
  labelNames: ['tool', 'result'] as const,
  registers: [registry],
});

export const dataFolderFree = new Gauge({
  name: 'pdn_data_folder_free_bytes',
  help: 'Free bytes on the data folder’s file system, measured at the scrape.',
  registers: [registry],
});

export const passwordHashes = new Counter({
  name: 'pdn_password_hashes_total',
  help: 'Passwords hashed (sign-in checks, unknown emails included, sign-ups, passwords set), on the hashing threads.',
  registers: [registry],
});

export const passwordHashRefusals = new Counter({
  name: 'pdn_password_hash_refusals_total',
  help: 'Requests that needed a hash and got none, by reason: address (its address held its share of places), full (every place taken), gone (the client left while waiting).',
  labelNames: ['reason'] as const,
  registers: [registry],
});

export const passwordHashPlaces = new Gauge({
  name: 'pdn_password_hash_places',
  help: 'Hashing places, by kind: running (hashing threads), total (running or waiting), per_address (the most one client address, an IPv6 one by its /64, may hold).',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const passwordHashesInFlight = new Gauge({
  name: 'pdn_password_hashes_in_flight',
  help: 'Hashing places held now, running or waiting.',
  registers: [registry],
});

export const passwordHashesInFlightMax = new Gauge({
  name: 'pdn_password_hashes_in_flight_max',
  help: 'The most hashing places held at once since the process started.',
  registers: [registry],
});
