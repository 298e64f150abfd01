// Sizes as people read them in messages: `9.5 MiB`.
export function mebibytes(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
}
