import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { Cleanups } from './cleanups.js';

describe('Cleanups', () => {
  it('runs every cleanup newest first, past a failing one, and only once', async () => {
    const ran: string[] = [];
    const cleanups = new Cleanups(createLogger('quiet'));
    cleanups.add('pool', () => {
      ran.push('pool');
    });
    cleanups.add('redis', async () => {
      ran.push('redis');
      throw new Error('already closed');
    });
    cleanups.add('s3', () => {
      ran.push('s3');
    });
    await Promise.all([cleanups.run(), cleanups.run()]);
    await cleanups.run();
    expect(ran).toEqual(['s3', 'redis', 'pool']);
  });
});
