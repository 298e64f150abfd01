// Environment variables where there is a `process` (Node, Bun, Deno's compat); nothing elsewhere,
// so the client still loads in runtimes with fetch but no process ("Works in Node and in
// any runtime with standard fetch").
export function readEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = env?.[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}
