// The peak of a figure sampled while a scenario runs (a process tree's memory, a folder's size).

/** Samples `measure` every `everyMs` until `stop()`; answers the highest figure seen. */
export function samplePeak(measure: () => Promise<number>, everyMs = 200): { stop(): Promise<number> } {
  let peak = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      peak = Math.max(peak, await measure());
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return peak;
    },
  };
}
