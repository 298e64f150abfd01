// A temp folder per CLI test file, with the fixture PDFs and images the commands run on, and a
// config home of its own so no developer's ~/.config/pdn leaks into a test.
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';

/** The OCR sample with known text (packages/fixtures/assets/ocr, see OCR_TEXTS in @pdn/fixtures). */
export const OCR_ENG_PNG = fileURLToPath(
  new URL('../../packages/fixtures/assets/ocr/eng.png', import.meta.url),
);

export interface Workspace {
  readonly dir: string;
  /** `XDG_CONFIG_HOME` for the CLI. */
  readonly configHome: string;
  /** Writes `bytes` to `dir/name` (creating folders) and returns the path. */
  file(name: string, bytes: Uint8Array): Promise<string>;
  /** Copies the English OCR sample to `dir/name`. */
  ocrImage(name: string): Promise<string>;
  path(...parts: string[]): string;
}

export function useWorkspace(): Workspace {
  let root = '';
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'pdn-cli-e2e-'));
    await mkdir(join(root, 'config'));
    await mkdir(join(root, 'work'));
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });
  const workspace: Workspace = {
    get dir() {
      return join(root, 'work');
    },
    get configHome() {
      return join(root, 'config');
    },
    path: (...parts) => join(workspace.dir, ...parts),
    async file(name, bytes) {
      const path = workspace.path(name);
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, bytes);
      return path;
    },
    async ocrImage(name) {
      const path = workspace.path(name);
      await mkdir(join(path, '..'), { recursive: true });
      await copyFile(OCR_ENG_PNG, path);
      return path;
    },
  };
  return workspace;
}
