// Admin listings as aligned columns on stdout, the first row a header (`keys list`, `users list`).
export function printTable(table: readonly (readonly string[])[]): void {
  const widths =
    table[0]?.map((_, column) => Math.max(...table.map((row) => (row[column] ?? '').length))) ?? [];
  for (const row of table)
    console.log(
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    );
}

/** An instant as admin listings show it: `2026-01-01T12:00:00Z`, or `-` for none. */
export function instant(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
