// How many webhook attempts one process keeps in flight (openapi.yaml, "Webhooks", Delivery): each
// attempt runs on its own, so a receiver that accepts the connection and never answers holds one slot
// for the attempt's 10 seconds and nothing else. The caps keep such receivers to a share:
//
// - 4 per user. A user's jobs end no faster than their plan's slots run them; 4 attempts in flight to
//   a receiver answering in 100 ms carry 40 events a second, more than any user's jobs make. A user
//   whose receivers all stall holds at most 4 of the process's slots.
// - 8 per receiving host (receiving-host.ts). One host may serve many users (an integration
//   platform): twice a user's cap lets two users' events go to it together, while one process never
//   opens more than 8 connections at once to a receiver that is slow for everyone.
// - 64 per process: sockets and one event body each. It takes 16 users with stalled receivers
//   before a healthy receiver's event waits for a slot.
//
// A delivery whose user or host is at its cap stays due: the claim passes over it (DeliveryStore's
// claimDue `skipUsers`, `skipHosts`) and takes the others', and an attempt that ends frees its slot.
import type { ClaimRoom, Delivery } from './delivery-store.js';

export interface AttemptCaps {
  process: number;
  user: number;
  host: number;
}

export const ATTEMPT_CAPS: AttemptCaps = { process: 64, user: 4, host: 8 };

type Holder = Pick<Delivery, 'userId' | 'host'>;

export class AttemptSlots {
  readonly #caps: AttemptCaps;
  #held = 0;
  readonly #byUser = new Map<number, number>();
  readonly #byHost = new Map<string, number>();

  constructor(caps: AttemptCaps = ATTEMPT_CAPS) {
    this.#caps = caps;
  }

  /** What a claim may take now: how many deliveries, passing over the users and hosts at their cap. */
  room(): ClaimRoom {
    return {
      limit: Math.max(0, this.#caps.process - this.#held),
      skipUsers: atCap(this.#byUser, this.#caps.user),
      skipHosts: atCap(this.#byHost, this.#caps.host),
    };
  }

  take(holder: Holder): void {
    this.#held += 1;
    add(this.#byUser, holder.userId, 1);
    add(this.#byHost, holder.host, 1);
  }

  release(holder: Holder): void {
    this.#held -= 1;
    add(this.#byUser, holder.userId, -1);
    add(this.#byHost, holder.host, -1);
  }
}

function atCap<K>(counts: Map<K, number>, cap: number): K[] {
  return [...counts].filter(([, held]) => held >= cap).map(([key]) => key);
}

function add<K>(counts: Map<K, number>, key: K, change: number): void {
  const held = (counts.get(key) ?? 0) + change;
  if (held === 0) counts.delete(key);
  else counts.set(key, held);
}
