// Tasks a test finishes by hand, for the tests of how work is scheduled (cpu-slots.test.ts,
// job-lanes.test.ts): each records when it started, and settles only when the test says so.

/** A task named `name` that pushes its name onto `started` when it starts. */
export function deferredTask(name: string, started: string[]) {
  let finish!: () => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = () => resolve(name);
    fail = reject;
  });
  const task = () => {
    started.push(name);
    return done;
  };
  return { task, finish, fail };
}

/** Lets queued promise callbacks run. */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
