import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The node arguments that run a TypeScript entry point of the repository (`packages/cli/src/main.ts`):
 * its compiled file under the `production` condition when every workspace package's build is at
 * least as new as its sources, else the source through tsx. A compiled start takes about half of
 * tsx's, and the suites start servers, workers and CLI commands dozens of times; a stale build
 * (sources edited since) is never run.
 * @param {string} root the repository root
 * @param {string} script the entry's path from the root, `<package>/src/<name>.ts`
 * @returns {string[]}
 */
export function entryArgs(root, script) {
  const compiled = script.replace(/\/src\/(.+)\.ts$/, '/dist/$1.js');
  if (compiled !== script && existsSync(join(root, compiled)) && buildIsCurrent(root)) return ['--conditions=production', compiled];
  return ['--import', 'tsx', script];
}

/** @type {Map<string, boolean>} */
const current = new Map();

function buildIsCurrent(root) {
  let answer = current.get(root);
  if (answer === undefined) {
    answer = true;
    for (const group of ['apps', 'packages']) {
      for (const name of readdirSync(join(root, group))) {
        const dir = join(root, group, name);
        if (!existsSync(join(dir, 'tsconfig.build.json')) || !existsSync(join(dir, 'src'))) continue;
        const dist = join(dir, 'dist');
        if (!existsSync(dist) || newest(join(dir, 'src'), true) > newest(dist, false)) answer = false;
      }
    }
    current.set(root, answer);
  }
  return answer;
}

/** The newest modification time of the files under `dir` (sources: leaving out tests). */
function newest(dir, sources) {
  let time = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) time = Math.max(time, newest(path, sources));
    else if (!sources || (/\.(ts|tsx|js|mjs|json)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name))) time = Math.max(time, statSync(path).mtimeMs);
  }
  return time;
}
