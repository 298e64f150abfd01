// How many rounds a scenario times a short job for: the profile's, up to three times as many in the full
// run, so that each median stands on a few seconds of samples. On the loaded 2-core machine a median of
// five runs of a job of some 150-250 ms swung widely for the same code: PDF to images' 4-page photo PDF
// from 1.0 to 2.6 of pdftoppm, images to PDF's camera JPEGs by ±14% to ±35% around img2pdf. The quick
// run, which shows the code path and not the figures, keeps its one round.
import type { Profile } from './profile.js';

/** What each side's runs should add up to, at least, within three times the profile's runs. */
const SAMPLE_MS = 3000;

/** The rounds for a job whose `baseline` is run once here to time it. */
export async function roundsFor(profile: Profile, baseline: () => Promise<unknown>): Promise<number> {
  if (profile.name !== 'full') return profile.runs;
  const started = performance.now();
  await baseline();
  const ms = performance.now() - started;
  return Math.max(profile.runs, Math.min(3 * profile.runs, Math.ceil(SAMPLE_MS / ms)));
}
