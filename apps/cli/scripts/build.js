// Builds dist/bin.js: the CLI and everything it imports (@pdn/sdk, commander, chalk, ora) in one file,
// so the packed CLI installs with `npm i -g` and nothing else. A CLI is an application:
// it ships the versions it was tested with, a global install needs no registry, and @pdn/sdk cannot
// drift from the CLI built against it. The bundled packages' licences go beside it in dist/.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const OUT = 'dist/bin.js';
const LICENSES = 'dist/THIRD-PARTY-LICENSES.md';

// Whatever an earlier build left would be packed with this one.
rmSync('dist', { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: ['src/bin.ts'],
  outfile: OUT,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.18',
  metafile: true,
  // commander is CommonJS and requires Node's built-ins; an ES module has no `require` of its own.
  banner: {
    js: "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);",
  },
});

/** `…/node_modules/@scope/name/x.js` -> `…/node_modules/@scope/name`; our own workspaces are not listed. */
function packageDir(input) {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  return match?.[1];
}

const dirs = [...new Set(Object.keys(metafile.inputs).map(packageDir))].filter((dir) => dir !== undefined);
const sections = dirs
  .map((dir) => {
    const { name, version, license } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const file = readdirSync(dir).find((entry) => /^licen[cs]e(\.|$)/i.test(entry));
    // Bundling copies the code, and MIT, ISC and the like ask that their notice travel with it.
    if (file === undefined)
      throw new Error(`${name} ${version} is bundled into ${OUT} but has no licence file to ship with it`);
    return {
      name,
      text: `## ${name} ${version} (${license})\n\n${readFileSync(join(dir, file), 'utf8').trim()}\n`,
    };
  })
  .sort((a, b) => a.name.localeCompare(b.name))
  .map((section) => section.text);
writeFileSync(
  LICENSES,
  `# Third-party code in bin.js\n\n${OUT} bundles these packages; their licences follow.\n\n${sections.join('\n')}`,
);
