// Users: who owns keys and a plan. Rate limits and upload caps belong to the user, shared by all their keys.
// A user made by the admin command before accounts had emails has a name and no email; one who signed up has
// an email and no name; either may gain the other. Every backend implements UserStore and passes
// users.contract.ts.
import type { Plan } from './plans.js';

export interface User {
  id: number;
  /** The admin command's handle (`keys create --user ada`); null for users who signed up. */
  name: string | null;
  /** Normalised (email.ts); what the user signs in with; null until an operator sets one. */
  email: string | null;
  plan: Plan;
  createdAt: number;
}

/** How a user is named in listings and logs: the name when there is one, else the email. */
export function userLabel(user: Pick<User, 'name' | 'email'>): string {
  return user.name ?? user.email ?? '?';
}

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** A user name the admin command cannot accept; the message says what is allowed. */
export class InvalidUserNameError extends Error {
  override name = 'InvalidUserNameError';
  constructor(candidate: string) {
    super(`invalid user name '${candidate}': use 1-64 letters, digits, '.', '_', '@' or '-'`);
  }
}

export function checkUserName(candidate: string): string {
  if (!NAME_PATTERN.test(candidate)) throw new InvalidUserNameError(candidate);
  return candidate;
}

/** Another user already has this email. */
export class EmailTakenError extends Error {
  override name = 'EmailTakenError';
  constructor(email: string) {
    super(`another user already has the email ${email}`);
  }
}

export interface UserStore {
  byId(id: number): Promise<User | undefined>;
  byName(name: string): Promise<User | undefined>;
  /** `email` normalised by the caller (email.ts). */
  byEmail(email: string): Promise<User | undefined>;
  /** Every user, oldest first. */
  list(): Promise<User[]>;
  count(): Promise<number>;
  /** Returns the named user, creating it on `plan` first when it does not exist (an existing plan is kept). */
  ensure(name: string, plan: Plan): Promise<{ user: User; created: boolean }>;
  /** A new user known by email (sign-up, `users create`); EmailTakenError when the email is in use. */
  createWithEmail(email: string, plan: Plan, passwordHash: string | null): Promise<User>;
  /** False when there is no such user. Takes effect on the next request. */
  setPlan(userId: number, plan: Plan): Promise<boolean>;
  /** False when there is no such user; EmailTakenError when another user has it. */
  setEmail(userId: number, email: string): Promise<boolean>;
  setPasswordHash(userId: number, hash: string): Promise<void>;
  /** The stored hash (passwords.ts), or undefined for no such user or one without a password. */
  passwordHash(userId: number): Promise<string | undefined>;
}
