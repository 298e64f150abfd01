// Colour for human output: off for NO_COLOR (no-color.org: set and not empty), for a
// stream that is not a terminal, and for --json; FORCE_COLOR (chalk's convention) turns it on for a
// pipe (FORCE_COLOR=0 off on a terminal), and NO_COLOR wins over it.
import { Chalk, type ChalkInstance } from 'chalk';

export interface ColourFacts {
  env: NodeJS.ProcessEnv;
  isTTY: boolean;
  json: boolean;
}

export function colourEnabled({ env, isTTY, json }: ColourFacts): boolean {
  if (json) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  return isTTY;
}

export function createStyle(enabled: boolean): ChalkInstance {
  return new Chalk({ level: enabled ? 1 : 0 });
}
