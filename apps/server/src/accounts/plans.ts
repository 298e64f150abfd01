// Plans and what each allows. Requests per hour come from the v1 specification (Limits); upload
// bytes per whole request are configurable (issue #2 defaults: 10 / 100 / 250 / 1024 MiB).
import type { UploadLimits } from '../config.js';

export const PLANS = ['free', 'premium', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  /** Rolling one-hour cap; `null` is Enterprise's "unlimited". */
  requestsPerHour: number | null;
  uploadBytes: number;
}

const REQUESTS_PER_HOUR: Record<Plan, number | null> = {
  free: 10,
  premium: 1000,
  business: 5000,
  enterprise: null,
};

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

export function planLimits(plan: Plan, uploadLimits: UploadLimits): PlanLimits {
  return { requestsPerHour: REQUESTS_PER_HOUR[plan], uploadBytes: uploadLimits[plan] };
}

/** How people write the plan in messages: "Free", "Enterprise". */
export function planTitle(plan: Plan): string {
  return plan.charAt(0).toUpperCase() + plan.slice(1);
}
