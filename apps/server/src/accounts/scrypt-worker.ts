// Entry point of a password-hashing thread (started by scrypt-threads.ts). It derives one key at a time
// with scryptSync, which runs on this thread itself: the asynchronous scrypt would queue on libuv's
// thread pool, which every thread of the process shares with the API's file reads and writes.
import { scryptSync } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import type { ScryptReply, ScryptRequest } from './scrypt-threads.js';

parentPort?.on('message', (request: ScryptRequest) => {
  let reply: ScryptReply;
  try {
    const { password, salt, keyLength, cost, blockSize, parallelism } = request;
    // maxmem: node's default (32 MiB) is exactly 128 * N * r, which scrypt exceeds by its overhead.
    const key = scryptSync(password, Buffer.from(salt), keyLength, {
      N: cost,
      r: blockSize,
      p: parallelism,
      maxmem: 256 * cost * blockSize,
    });
    reply = { ok: true, key: new Uint8Array(key) };
  } catch (error) {
    reply = { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
