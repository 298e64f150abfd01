// `pdn-server keys create|list|revoke`: keys may carry a `--name`, users are named as user-ref.ts says.
import { type Accounts, checkKeyName, type Plan } from '../accounts/index.js';
import { instant, printTable } from './print-table.js';
import { UsageError } from './usage-error.js';
import { findUser } from './user-ref.js';

export async function keysCreate(
  accounts: Accounts,
  options: { user: string | undefined; plan: Plan | undefined; test: boolean; name: string | undefined },
): Promise<void> {
  if (options.user === undefined) throw new UsageError('keys create needs --user NAME');
  const name = checkKeyName(options.name ?? '');
  const existing = await findUser(accounts, options.user);
  const { user, created } = existing
    ? { user: existing, created: false }
    : await accounts.users.ensure(options.user, options.plan ?? 'premium');
  const label = options.user;
  if (created) console.log(`Created user ${label} on the ${user.plan} plan.`);
  else if (options.plan !== undefined && options.plan !== user.plan) {
    console.error(
      `Note: ${label} stays on the ${user.plan} plan; change it with: pdn-server users set-plan ${label} ${options.plan}`,
    );
  }
  const { key, record } = await accounts.keys.create(user.id, options.test ? 'test' : 'live', name);
  console.log(`Created ${record.kind} key ${record.id} for ${label}. Keep it safe: it is shown only once.`);
  console.log(key);
}

export const KEYS_HEADER = [
  'ID',
  'USER',
  'NAME',
  'KIND',
  'PREFIX',
  'CREATED',
  'LAST USED',
  'REVOKED',
  'EXPIRES',
];

export async function keysList(accounts: Accounts, userRef: string | undefined): Promise<void> {
  let userId: number | undefined;
  if (userRef !== undefined) {
    userId = (await findUser(accounts, userRef))?.id;
    if (userId === undefined) return printTable([KEYS_HEADER]);
  }
  const rows = (await accounts.keys.list(userId)).map((key) => [
    key.id,
    key.owner,
    key.name === '' ? '-' : key.name,
    key.kind,
    key.prefix,
    instant(key.createdAt),
    instant(key.lastUsedAt),
    instant(key.revokedAt),
    // A rolled key's end: it works until then.
    instant(key.expiresAt),
  ]);
  printTable([KEYS_HEADER, ...rows]);
}

export async function keysRevoke(accounts: Accounts, id: string): Promise<void> {
  if (!(await accounts.keys.revoke(id)))
    throw new Error(`no active key with id ${id} (see pdn-server keys list)`);
  console.log(`Revoked key ${id}.`);
}
