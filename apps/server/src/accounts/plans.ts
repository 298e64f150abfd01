// Plans and what each allows. Requests per hour come from the v1 specification (Limits); upload
// bytes per whole request are configurable (issue #2 defaults: 10 / 100 / 250 / 1024 MiB); pages
// written per merge or split bound the work one request can ask for (issue #11.8; openapi.yaml).
import type { UploadLimits } from '../config.js';

export const PLANS = ['free', 'premium', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  /** Rolling one-hour cap; `null` is Enterprise's "unlimited". */
  requestsPerHour: number | null;
  uploadBytes: number;
  /** Most pages one merge or split may write in all its outputs (engines/page-budget.ts). */
  pagesPerRequest: number;
  /** Most queued and running jobs at once before `Prefer: respond-async` is refused (issue #13). */
  unfinishedJobs: number;
}

const REQUESTS_PER_HOUR: Record<Plan, number | null> = {
  free: 10,
  premium: 1000,
  business: 5000,
  enterprise: null,
};

// Sized from the work, not the spec: qpdf writes some 5,000 pages a second here, so Free's budget is
// under a second of tool time and Enterprise's covers merging 20 files at the 5000-page default cap.
// A split of 100 ranges over a 5000-page file asked 500,000 (issue #11.8).
const PAGES_PER_REQUEST: Record<Plan, number> = {
  free: 2_000,
  premium: 10_000,
  business: 25_000,
  enterprise: 100_000,
};

// Enough for a CI pipeline to hand over a batch (Premium: 100 files) without one user filling the
// queue for everybody; Free stays small, as its hourly limit is 10 (openapi.yaml, "Jobs").
const UNFINISHED_JOBS: Record<Plan, number> = {
  free: 5,
  premium: 100,
  business: 250,
  enterprise: 1000,
};

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

export function planLimits(plan: Plan, uploadLimits: UploadLimits): PlanLimits {
  return {
    requestsPerHour: REQUESTS_PER_HOUR[plan],
    uploadBytes: uploadLimits[plan],
    pagesPerRequest: PAGES_PER_REQUEST[plan],
    unfinishedJobs: UNFINISHED_JOBS[plan],
  };
}

/** How people write the plan in messages: "Free", "Enterprise". */
export function planTitle(plan: Plan): string {
  return plan.charAt(0).toUpperCase() + plan.slice(1);
}
