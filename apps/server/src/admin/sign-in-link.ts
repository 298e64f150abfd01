// The one-time link the operator hands a user (no mail server is assumed): the account area's "choose a
// password" page with the token. Its base is where the server said it is when it last started
// (server-address/): its PDN_PUBLIC_URL, else the address it listened on. This command runs in
// another shell, whose PORT says nothing about the server's (a server on 3411 once got links to 3000).
import type { Accounts } from '../accounts/index.js';
import type { Config } from '../config.js';
import { linkBase } from '../server-address/server-address.js';

export interface LinkBase {
  /** `https://pdn.example.com`; empty (links are paths alone) when nothing says where the server is. */
  base: string;
  /** For stderr: how the base was found when it is not what the server recorded. */
  note?: string;
}

/**
 * PDN_PUBLIC_URL when this shell sets it (the operator's explicit word), else what the server
 * recorded, else, for a database no start has recorded an address in yet, this shell's HOST and PORT.
 */
export async function linkBaseOf(accounts: Accounts, config: Config): Promise<LinkBase> {
  if (config.account.publicUrl !== undefined) return { base: config.account.publicUrl };
  const recorded = await accounts.serverAddress.recorded();
  if (recorded !== undefined) return { base: linkBase(recorded) };
  const note = 'The server has not recorded its address here yet (start it once);';
  if (config.port === 0) return { base: '', note: `${note} set PDN_PUBLIC_URL for whole links.` };
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? 'localhost' : config.host;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
  return { base, note: `${note} the link assumes ${base}, from HOST and PORT.` };
}

export function signInLink(base: string, token: string): string {
  return `${base}/account/welcome?token=${token}`;
}
