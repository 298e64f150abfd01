// The `cursor` of a job list page, the same in every JobStore backend: the submission number (`seq`)
// of the last job shown, in base64url so nobody builds one by hand.
export const encodeCursor = (seq: number): string => Buffer.from(`s${seq}`).toString('base64url');

/** The `seq` a cursor names; undefined when no store made it. */
export function decodeCursor(cursor: string): number | undefined {
  const match = /^s([1-9][0-9]{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  return match?.[1] === undefined ? undefined : Number(match[1]);
}
