/**
 * `dashboard/dist`, built when it is missing or was built from other sources: `npm install` (the root
 * `prepare` script), `npm start` and the browser test all call this, so a fresh clone serves and tests
 * the dashboard with no separate build step. The build records a hash of its inputs in
 * `dist/.source-hash`; an unchanged hash skips the build (~25 s on 2 cores).
 *
 * Run directly (`tsx local/dashboard-build.ts`) it builds when needed and says what it did.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** Under `dashboard/`: not inputs of the build. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist']);
const TEST_FILE = /\.test\.tsx?$/;

function inputFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const full = join(dir, e.name);
      if (e.isDirectory()) return SKIPPED_DIRS.has(e.name) ? [] : inputFiles(full);
      return TEST_FILE.test(e.name) ? [] : [full];
    })
    .sort();
}

/** A hash of everything the build reads: the dashboard's sources and config, and the lockfile. */
export function dashboardSourceHash(root: string): string {
  const hash = createHash('sha256');
  const dashboard = join(root, 'dashboard');
  for (const file of [...inputFiles(dashboard), join(root, 'package-lock.json')]) {
    hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** Whether `dashboard/dist` exists and was built from the current sources. */
export function dashboardIsBuilt(root: string, wanted = dashboardSourceHash(root)): boolean {
  const dist = join(root, 'dashboard', 'dist');
  const stamp = join(dist, '.source-hash');
  return existsSync(join(dist, 'index.html')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted;
}

/** `dashboard/dist` when it matches the sources, else after building it. Returns whether it built. */
export function ensureDashboardBuilt(root: string): boolean {
  const stamp = join(root, 'dashboard', 'dist', '.source-hash');
  const wanted = dashboardSourceHash(root);
  if (dashboardIsBuilt(root, wanted)) return false;
  // vite empties dist first, so an interrupted build leaves no stamp and is redone next time.
  const npmArgs = ['run', 'build', '--silent', '-w', '@spendguard/dashboard'];
  // Under npm (install's `prepare`, `npm start`, `npm test`) its own CLI script, run by this Node: no
  // `npm` on PATH needed, and on Windows no `npm.cmd`, which execFile cannot start without a shell.
  const npmCli = process.env.npm_execpath;
  const viaNode = npmCli !== undefined && /\.c?js$/.test(npmCli);
  const windows = process.platform === 'win32';
  execFileSync(
    viaNode ? process.execPath : windows ? 'npm.cmd' : 'npm',
    viaNode ? [npmCli, ...npmArgs] : npmArgs,
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], shell: !viaNode && windows },
  );
  writeFileSync(stamp, wanted);
  return true;
}

if (require.main === module) {
  const root = resolve(__dirname, '..');
  const started = Date.now();
  const built = ensureDashboardBuilt(root);
  process.stdout.write(
    built ? `dashboard built in ${Date.now() - started} ms\n` : 'dashboard up to date (dashboard/dist)\n',
  );
}
