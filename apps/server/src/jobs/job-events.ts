// The job ends a process hears of, handed to everyone in it who listens (JobEvents, job-queue.ts):
// the ends its own worker records, and, over the shared backends, those other processes report
// (bullmq/). Listeners are the waiters (job-waiters.ts) and the webhook deliverer; nothing in the job
// core calls them by name.
import type { JobEnd, JobEvents } from './job-queue.js';

export class LocalJobEvents implements JobEvents {
  readonly #listeners = new Set<(end: JobEnd) => void>();

  onEnded(listener: (end: JobEnd) => void): () => void {
    // Wrapped, so the same function subscribed twice is told twice and unsubscribed once each.
    const own = (end: JobEnd) => listener(end);
    this.#listeners.add(own);
    return () => this.#listeners.delete(own);
  }

  emit(end: JobEnd): void {
    for (const listener of [...this.#listeners]) listener(end);
  }
}
