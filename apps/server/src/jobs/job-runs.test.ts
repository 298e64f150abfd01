// A stop that reaches a process before the job's run starts there: a worker reads the job as running
// from the store, a cancel lands and is heard while nothing of it runs yet, then the run starts. The
// run must end at once, canceled, without the operation doing anything.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { claimNext } from './fair-share.js';
import { LocalJobEvents } from './job-events.js';
import { JobRuns } from './job-runs.js';
import { storeSubmission } from './store-submission.js';
import { TestDeployment } from './test-deployment.js';

let deployment: TestDeployment;

beforeEach(async () => {
  deployment = await TestDeployment.open('local');
});

afterEach(async () => {
  await deployment.close();
});

it('ends a run at its start, canceled, when its stop came before it', async () => {
  const { store, storage } = deployment;
  let worked = false;
  const runs = new JobRuns({
    store,
    inputs: storage.inputs,
    process: async (_job, signal) => {
      signal.throwIfAborted();
      worked = true;
      return {};
    },
    events: new LocalJobEvents(),
    slots: 1,
    capacity: async () => 1,
    log: createLogger('quiet'),
    now: Date.now,
  });
  await storeSubmission(store, storage.inputs, deployment.submission('early stop'), Date.now());
  const record = await claimNext(store, Date.now(), 1);
  if (record === undefined) throw new Error('no job claimed');

  // The cancel: recorded in the store, then heard here while nothing of the job runs.
  await store.finish(record.id, { status: 'canceled' }, Date.now());
  expect(runs.stop(record.id)).toBeUndefined();

  const source = { inputs: storage.inputs, storedInputs: true, interrupted: async () => {} };
  expect(await runs.run(record, source)).toEqual({ status: 'canceled' });
  expect(worked).toBe(false);
  expect(await store.get(record.id)).toMatchObject({ status: 'canceled' });
});
