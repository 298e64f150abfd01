// `--help` ends with examples on every command, in gh's "EXAMPLES" style.

export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}
