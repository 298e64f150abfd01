// The server logs each Ghostscript run's command line ("tool finished", `args`), so the bench can run
// it again alone on its own copy of the file. The input is named twice there: in the one file -dSAFER
// may read (`--permit-file-read=`) and, in hexadecimal, in the program given to `-c`.

/** `args` with their input replaced by `file`; undefined where they name no input. */
export function replayedOn(args: readonly string[], file: string): string[] | undefined {
  const permit = '--permit-file-read=';
  const input = args.find((arg) => arg.startsWith(permit))?.slice(permit.length);
  if (input === undefined) return undefined;
  const hex = (text: string) => `<${Buffer.from(text, 'utf8').toString('hex')}>`;
  return args.map((arg) => arg.replaceAll(input, file).replaceAll(hex(input), hex(file)));
}
