// Rows of device_logins as both SQL backends read and write them (sqlite/, postgres/). Times are
// milliseconds: node-postgres returns BIGINT as strings, so they go through Number().
import type { DeviceLogin } from './device-logins.js';

export interface DeviceLoginRow {
  device_hash: string;
  user_code: string;
  client_name: string;
  client_address: string;
  created_at: number | string;
  expires_at: number | string;
  interval_ms: number;
  last_poll_at: number | string | null;
  state: DeviceLogin['state'];
  user_id: number | null;
}

export function toDeviceLogin(row: DeviceLoginRow): DeviceLogin {
  return {
    deviceHash: row.device_hash,
    userCode: row.user_code,
    clientName: row.client_name,
    clientAddress: row.client_address,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    intervalMs: row.interval_ms,
    lastPollAt: row.last_poll_at === null ? null : Number(row.last_poll_at),
    state: row.state,
    userId: row.user_id,
  };
}

/** The columns an insert writes, in order, and their values. */
export const DEVICE_LOGIN_COLUMNS =
  'device_hash, user_code, client_name, client_address, created_at, expires_at, interval_ms, last_poll_at, state, user_id';

export function deviceLoginValues(login: DeviceLogin): (string | number | null)[] {
  return [
    login.deviceHash,
    login.userCode,
    login.clientName,
    login.clientAddress,
    login.createdAt,
    login.expiresAt,
    login.intervalMs,
    login.lastPollAt,
    login.state,
    login.userId,
  ];
}
