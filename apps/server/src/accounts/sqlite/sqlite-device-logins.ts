// DeviceLoginStore over SQLite (device-logins.contract.ts).
import type { Db } from '../../database/sqlite/sqlite-database.js';
import {
  DEVICE_LOGIN_COLUMNS,
  type DeviceLoginRow,
  deviceLoginValues,
  toDeviceLogin,
} from '../device-login-rows.js';
import type { DeviceLogin, DeviceLoginStore } from '../device-logins.js';

export class SqliteDeviceLogins implements DeviceLoginStore {
  constructor(private readonly db: Db) {}

  async insert(login: DeviceLogin) {
    const { changes } = this.db
      .prepare(
        `INSERT INTO device_logins (${DEVICE_LOGIN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (user_code) DO NOTHING`,
      )
      .run(...deviceLoginValues(login));
    return changes === 1;
  }

  async get(deviceHash: string) {
    const row = this.db.prepare('SELECT * FROM device_logins WHERE device_hash = ?').get(deviceHash) as
      | DeviceLoginRow
      | undefined;
    return row && toDeviceLogin(row);
  }

  async byUserCode(userCode: string) {
    const row = this.db.prepare('SELECT * FROM device_logins WHERE user_code = ?').get(userCode) as
      | DeviceLoginRow
      | undefined;
    return row && toDeviceLogin(row);
  }

  async replace(expected: DeviceLogin, next: DeviceLogin) {
    const { changes } = this.db
      .prepare(
        `UPDATE device_logins SET state = ?, user_id = ?, last_poll_at = ?, interval_ms = ?
          WHERE device_hash = ? AND state = ? AND last_poll_at IS ?`,
      )
      .run(
        next.state,
        next.userId,
        next.lastPollAt,
        next.intervalMs,
        expected.deviceHash,
        expected.state,
        expected.lastPollAt,
      );
    return changes === 1;
  }

  async deleteExpired(before: number) {
    this.db.prepare('DELETE FROM device_logins WHERE expires_at <= ?').run(before);
  }
}
