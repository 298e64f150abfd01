// What every scenario receives: the running server, an SDK client on an Enterprise key (so rate limits
// never interfere), the corpus on disk and a scratch folder.
import type { TestServer } from '@pdn/e2e/harness';
import type { Pdn } from '@pdn/sdk';
import type { Corpus } from './corpus.js';
import type { Profile } from './profile.js';
import type { Row } from './report.js';

export interface BenchContext {
  profile: Profile;
  server: TestServer;
  apiKey: string;
  pdn: Pdn;
  corpus: Corpus;
  /** Scratch folder for outputs; removed at the end of the run. */
  workDir: string;
}

export interface ScenarioResult {
  rows: Row[];
  details?: { title: string; markdown: string }[];
}

export interface Scenario {
  name: string;
  /**
   * Left out of the quick run (CI's smoke test) unless named with `--only`: the scenario starts
   * deployments of its own (stacks of processes, private services) and drives them for fixed
   * seconds, minutes of CI for figures nobody reads there. The end-to-end tests hold the behaviour
   * it measures (test/src: shared-backends, scale-out, sharing, killed-server, outage-waiters,
   * early-answers).
   */
  fullOnly?: true;
  run(context: BenchContext): Promise<ScenarioResult>;
}
