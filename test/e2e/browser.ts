/**
 * Which Chromium the browser test drives: one the machine already has, else the one packed inside the
 * `@sparticuz/chromium` devDependency (a brotli-compressed headless build in the npm package itself,
 * inflated to the temp directory on first use), so `npm install && npm test` needs nothing from apt.
 */
import { existsSync } from 'node:fs';
// Loading the module inflates nothing (that is executablePath()); it only sets up Lambda's environment
// when it runs inside Lambda.
import packagedChromium from '@sparticuz/chromium';

/** Where a browser came from (printed by the test, so a run says which one it used). */
export type BrowserSource = 'environment' | 'system' | 'package';

export interface BrowserChoice {
  readonly executablePath: string;
  readonly source: BrowserSource;
}

/** Variables naming a browser binary, in order of precedence (the second is the test's older name). */
export const BROWSER_ENV_VARS = ['CHROME_PATH', 'SPENDGUARD_E2E_CHROMIUM'] as const;

/** The usual install locations of Chrome and Chromium on Linux and macOS, in order of preference. */
export const SYSTEM_BROWSER_PATHS: readonly string[] = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/snap/bin/chromium',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
  '/opt/google/chrome/chrome',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

/**
 * A browser named by the environment or found at a usual location, if any. A variable that names a
 * missing file is an error (the person asked for that browser), not a reason to look elsewhere.
 */
export function installedBrowser(
  env: Readonly<Record<string, string | undefined>>,
  exists: (path: string) => boolean = existsSync,
): BrowserChoice | undefined {
  for (const name of BROWSER_ENV_VARS) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    if (!exists(value)) throw new Error(`${name}=${value}: no such file (unset it to use another browser)`);
    return { executablePath: value, source: 'environment' };
  }
  const found = SYSTEM_BROWSER_PATHS.find((p) => exists(p));
  return found === undefined ? undefined : { executablePath: found, source: 'system' };
}

/** The installed browser, else the packaged Chromium (inflated on first use, ~3 s). */
export async function findBrowser(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<BrowserChoice> {
  const installed = installedBrowser(env);
  if (installed) return installed;
  return { executablePath: await packagedChromium.executablePath(), source: 'package' };
}
