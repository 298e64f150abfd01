// How admin commands name a user: by the name the admin command gave it, or by email for
// those who signed up (or were created with `users create --email`).
import { type Accounts, normaliseEmail, type User } from '../accounts/index.js';

/** The user `ref` names, by name first, then by email; undefined when none does. */
export async function findUser(accounts: Accounts, ref: string): Promise<User | undefined> {
  const byName = await accounts.users.byName(ref);
  if (byName) return byName;
  try {
    return await accounts.users.byEmail(normaliseEmail(ref));
  } catch {
    return undefined;
  }
}

export async function requireUser(accounts: Accounts, ref: string): Promise<User> {
  const user = await findUser(accounts, ref);
  if (!user) throw new Error(`no user named ${ref} (see pdn-server users list)`);
  return user;
}
