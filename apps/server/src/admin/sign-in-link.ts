// The one-time link the operator hands a user (issue #12: no mail server is assumed): the account
// area's "choose a password" page with the token. Its base is PDN_PUBLIC_URL when the server is
// reached under another name (a proxy, a domain), else the address the server listens on.
import type { Config } from '../config.js';

/** The links' base; empty (a path alone) when the server picks its port (PORT=0) and none is set. */
export function baseUrl(config: Config): string {
  if (config.account.publicUrl !== undefined) return config.account.publicUrl;
  if (config.port === 0) return '';
  // A wildcard address listens everywhere; a browser on the same machine reaches it as localhost.
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? 'localhost' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

export function signInLink(config: Config, token: string): string {
  return `${baseUrl(config)}/account/welcome?token=${token}`;
}
