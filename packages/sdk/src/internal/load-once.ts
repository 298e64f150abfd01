// A module loaded with import() the first time it is needed, then kept. import() of a module already
// loaded is not free: Node asks its loader again each time, and where a loader hook is registered (tsx,
// ts-node, test runners) each ask is a round trip to the hook's thread, 0.3 to 1 ms a call on the
// bench's machine against some 0.02 ms without one. Uploading from a path and downloading to one asked
// once per call; a failed load is asked again next time.

export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
