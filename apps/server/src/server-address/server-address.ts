// Where the running server can be reached, recorded by the server itself when it starts listening, in
// the data folder's database (or the shared one): the address it listens on and PDN_PUBLIC_URL when
// set. The admin commands run in another shell, often with another PORT or none, so the links they
// print (a user's one-time sign-in link) are made from what the server recorded, not guessed from
// their own environment. A store interface, like the accounts' (STYLE.md 14): SQLite and PostgreSQL
// implement it and pass server-address.contract.ts.

export interface ServerAddress {
  /** Where it listened: `http://127.0.0.1:3411`, with the real port when PORT=0. */
  listening: string;
  /** PDN_PUBLIC_URL when the server had it (a proxy, a domain), else null. */
  publicUrl: string | null;
  /** Unix milliseconds of the start that recorded it. */
  recordedAt: number;
}

export interface ServerAddressStore {
  /** Replaces what an earlier start recorded: the latest start is where the server is. */
  record(address: ServerAddress): Promise<void>;
  /** What the latest start recorded; undefined before any start recorded one. */
  recorded(): Promise<ServerAddress | undefined>;
}

/** The wildcard addresses: a server listening on one is reached on this machine as localhost. */
const EVERY_INTERFACE = ['0.0.0.0', '::', '[::]'];

/**
 * The base of links to the server: its public URL, else where it listens, a wildcard address written
 * as localhost (a browser on the same machine reaches it so).
 */
export function linkBase(address: Pick<ServerAddress, 'listening' | 'publicUrl'>): string {
  if (address.publicUrl !== null) return address.publicUrl;
  const url = new URL(address.listening);
  if (EVERY_INTERFACE.includes(url.hostname)) url.hostname = 'localhost';
  return url.origin;
}
