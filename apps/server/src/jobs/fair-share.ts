// The fair order in which queued jobs start (openapi.yaml, "Jobs", Fairness; STYLE.md 15, 27: the
// policy once, above one primitive per store). The unit of fairness is the user, weighted by plan:
// when a slot frees, the next job is the oldest queued job of the user with the fewest running jobs
// for its weight (ties: whose last start is oldest, or who never started one), so a user never holds
// more than its share of the slots while another waits. Free users together hold at most half the
// slots while a paying user waits: opening many free accounts buys no more than a share of that half.
import type { Plan } from '../accounts/plans.js';
import type { JobRecord, JobStore, UserWork } from './job-store.js';

/** Each plan's weight: a Premium user's share of the slots is twice a Free user's. */
export const PLAN_WEIGHTS: Readonly<Record<Plan, number>> = {
  free: 1,
  premium: 2,
  business: 4,
  enterprise: 8,
};

/** How many times a claim is tried again when another one took the picked user's job first. */
const CLAIM_TRIES = 5;

/** Free users' running jobs, and whether their half of the `slots` is taken while a paying user waits. */
function freeHalfTaken(users: readonly UserWork[], slots: number): boolean {
  const payingWaits = users.some((user) => user.plan !== 'free' && user.queued > 0);
  const freeRunning = users.reduce((sum, user) => sum + (user.plan === 'free' ? user.running : 0), 0);
  return payingWaits && freeRunning >= Math.floor(slots / 2);
}

/** Which user's job starts next in a deployment of `slots`; undefined when nobody may start one. */
export function pickNext(users: readonly UserWork[], slots: number): number | undefined {
  const freeClosed = freeHalfTaken(users, slots);
  let best: UserWork | undefined;
  const load = (user: UserWork) => user.running / PLAN_WEIGHTS[user.plan];
  for (const user of users) {
    if (user.queued === 0 || (freeClosed && user.plan === 'free')) continue;
    if (best === undefined || load(user) < load(best) || (load(user) === load(best) && before(user, best)))
      best = user;
  }
  return best?.userId;
}

/** Whose last start is older: never started first. */
function before(a: UserWork, b: UserWork): boolean {
  if (a.lastStart === null) return b.lastStart !== null || a.userId < b.userId;
  return b.lastStart !== null && a.lastStart < b.lastStart;
}

/**
 * Whether `userId`'s running job should hand its slot on at a natural boundary (between pages): some
 * other user waits whom the fair order would start before this job's next turn.
 */
export function shouldHandOn(users: readonly UserWork[], userId: number, slots: number): boolean {
  // As the queue would stand with this job back in it.
  const handedOn = users.map((user) =>
    user.userId === userId ? { ...user, queued: user.queued + 1, running: user.running - 1 } : user,
  );
  if (!handedOn.some((user) => user.userId === userId)) return false;
  const next = pickNext(handedOn, slots);
  return next !== undefined && next !== userId;
}

/** Starts the next job in the fair order: the picked user's oldest queued one; undefined when none is queued. */
export async function claimNext(store: JobStore, now: number, slots: number): Promise<JobRecord | undefined> {
  const [job] = await claimUpTo(store, now, slots, 1);
  return job;
}

/**
 * Starts up to `room` jobs in the fair order, each the picked user's oldest queued one. Who has work is
 * read once (or taken from `users`, read by the caller) and brought up to date here after each start,
 * so a burst of starts costs one read; fewer start when fewer were queued at the read, and a job
 * stored after it wakes whoever claims again. A pick another claim took first (SKIP LOCKED) makes it
 * read again, at most CLAIM_TRIES times.
 */
export async function claimUpTo(
  store: JobStore,
  now: number,
  slots: number,
  room: number,
  users?: readonly UserWork[],
): Promise<JobRecord[]> {
  const claimed: JobRecord[] = [];
  let known = users;
  for (let misses = 0; claimed.length < room && misses < CLAIM_TRIES; ) {
    known ??= await store.usersWithWork();
    const userId = pickNext(known, slots);
    if (userId === undefined) break;
    const job = await store.claimOldest(userId, now);
    if (job === undefined) {
      known = undefined;
      misses += 1;
      continue;
    }
    claimed.push(job);
    known = afterStart(known, userId);
  }
  return claimed;
}

/** `users` once `userId` started one of its queued jobs, the latest start of all. */
function afterStart(users: readonly UserWork[], userId: number): UserWork[] {
  const latest = Math.max(0, ...users.map((user) => user.lastStart ?? 0));
  return users.map((user) =>
    user.userId === userId
      ? { ...user, queued: user.queued - 1, running: user.running + 1, lastStart: latest + 1 }
      : user,
  );
}
