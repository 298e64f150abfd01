// A database at an older schema version, exactly as a server of that version left it (the migrations
// are append only, so their first `version` entries are that server's whole schema): the upgrade
// tests store rows in it the way that server did, then start today's server on it.
import { openDatabase } from './sqlite/sqlite-database.js';

/** `<dataDir>/pdn.sqlite` created with SQLite migrations 1 to `version` and no more. */
export function sqliteSchemaAt(dataDir: string, version: number): void {
  openDatabase(dataDir, version).close();
}

/** The PostgreSQL database at `databaseUrl` brought to migration `version` and no further. */
export async function postgresSchemaAt(databaseUrl: string, version: number): Promise<void> {
  // Loaded here, as the shared backends load it: the embedded server never loads pg.
  const { default: pg } = await import('pg');
  const { PgDb } = await import('./postgres/pg-db.js');
  const { migrate } = await import('./postgres/pg-migrations.js');
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    await migrate(new PgDb(pool), version);
  } finally {
    await pool.end();
  }
}
