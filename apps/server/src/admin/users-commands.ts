// `pdn-server users …`: create a user known by email and print their one-time sign-in
// link, list users, give one an email, print a password-reset link, change a plan.
import { type Accounts, normaliseEmail, type Plan, userLabel } from '../accounts/index.js';
import type { Config } from '../config.js';
import { instant, printTable } from './print-table.js';
import { linkBaseOf, signInLink } from './sign-in-link.js';
import { UsageError } from './usage-error.js';
import { requireUser } from './user-ref.js';

async function printLink(accounts: Accounts, config: Config, token: string): Promise<void> {
  const { base, note } = await linkBaseOf(accounts, config);
  if (note !== undefined) console.error(note);
  console.log('Send them this link to choose a password; it works once, within 24 hours:');
  // The last line of stdout, for scripts.
  console.log(signInLink(base, token));
}

export async function usersCreate(
  accounts: Accounts,
  config: Config,
  options: { email: string | undefined; plan: Plan | undefined },
): Promise<void> {
  if (options.email === undefined) throw new UsageError('users create needs --email EMAIL');
  const email = normaliseEmail(options.email);
  const user = await accounts.users.createWithEmail(email, options.plan ?? 'free', null);
  console.log(`Created user ${email} on the ${user.plan} plan.`);
  await printLink(accounts, config, await accounts.signInLinks.issue(user.id));
}

export async function usersList(accounts: Accounts): Promise<void> {
  const users = await accounts.users.list();
  const rows = await Promise.all(
    users.map(async (user) => [
      String(user.id),
      user.name ?? '-',
      user.email ?? '-',
      user.plan,
      (await accounts.users.passwordHash(user.id)) === undefined ? 'no' : 'yes',
      instant(user.createdAt),
    ]),
  );
  printTable([['ID', 'NAME', 'EMAIL', 'PLAN', 'PASSWORD', 'CREATED'], ...rows]);
}

export async function usersSetEmail(accounts: Accounts, ref: string, given: string): Promise<void> {
  const email = normaliseEmail(given);
  const user = await requireUser(accounts, ref);
  await accounts.users.setEmail(user.id, email);
  console.log(`${userLabel(user)} now signs in as ${email}.`);
  if ((await accounts.users.passwordHash(user.id)) === undefined)
    console.log(
      `They have no password yet: pdn-server users reset-password ${email} prints a link to choose one.`,
    );
}

export async function usersResetPassword(accounts: Accounts, config: Config, ref: string): Promise<void> {
  const user = await requireUser(accounts, ref);
  if (user.email === null)
    throw new Error(
      `${userLabel(user)} has no email to sign in with; first: pdn-server users set-email ${ref} EMAIL`,
    );
  console.log(
    `A new password for ${user.email}: their current password keeps working until the link is used.`,
  );
  await printLink(accounts, config, await accounts.signInLinks.issue(user.id));
}

export async function usersSetPlan(accounts: Accounts, ref: string, plan: Plan): Promise<void> {
  const user = await requireUser(accounts, ref);
  await accounts.users.setPlan(user.id, plan);
  console.log(`${ref} is now on the ${plan} plan.`);
}
