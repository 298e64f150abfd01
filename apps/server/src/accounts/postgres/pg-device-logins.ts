// DeviceLoginStore over PostgreSQL (device-logins.contract.ts).
import type { PgDb } from '../../database/postgres/pg-db.js';
import {
  DEVICE_LOGIN_COLUMNS,
  type DeviceLoginRow,
  deviceLoginValues,
  toDeviceLogin,
} from '../device-login-rows.js';
import type { DeviceLogin, DeviceLoginStore } from '../device-logins.js';

export class PgDeviceLogins implements DeviceLoginStore {
  constructor(private readonly db: PgDb) {}

  async insert(login: DeviceLogin) {
    const changed = await this.db.changes(
      `INSERT INTO device_logins (${DEVICE_LOGIN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (user_code) DO NOTHING`,
      deviceLoginValues(login),
    );
    return changed === 1;
  }

  async get(deviceHash: string) {
    const [row] = await this.db.rows<DeviceLoginRow>('SELECT * FROM device_logins WHERE device_hash = $1', [
      deviceHash,
    ]);
    return row && toDeviceLogin(row);
  }

  async byUserCode(userCode: string) {
    const [row] = await this.db.rows<DeviceLoginRow>('SELECT * FROM device_logins WHERE user_code = $1', [
      userCode,
    ]);
    return row && toDeviceLogin(row);
  }

  async replace(expected: DeviceLogin, next: DeviceLogin) {
    const changed = await this.db.changes(
      `UPDATE device_logins SET state = $1, user_id = $2, last_poll_at = $3, interval_ms = $4
        WHERE device_hash = $5 AND state = $6 AND last_poll_at IS NOT DISTINCT FROM $7`,
      [
        next.state,
        next.userId,
        next.lastPollAt,
        next.intervalMs,
        expected.deviceHash,
        expected.state,
        expected.lastPollAt,
      ],
    );
    return changed === 1;
  }

  async deleteExpired(before: number) {
    await this.db.changes('DELETE FROM device_logins WHERE expires_at <= $1', [before]);
  }
}
