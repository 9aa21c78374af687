/**
 * Builds `@service/sdk` into `sdk/dist`:
 * - `index.mjs` (ESM) and `index.cjs` (CommonJS): one self-contained, minified file each, with everything
 *   the SDK uses from `core/` bundled in and no import of any package or `node:`
 *   module (platform `neutral`: a bare import would fail the build);
 * - `index.d.ts` / `index.d.mts`: the public types in one file (dts-bundle-generator), which reference
 *   nothing from `core/`.
 *
 * Run with `npm run build -w sdk` or `npx tsx sdk/scripts/build.ts`.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build, type BuildOptions } from 'esbuild';

export const SDK_ROOT = join(__dirname, '..');
export const ENTRY = join(SDK_ROOT, 'src', 'index.ts');

/** The esbuild settings shared by both formats (and by the benchmark's size measurement). */
export function esbuildOptions(format: 'esm' | 'cjs', outfile: string): BuildOptions {
  return {
    entryPoints: [ENTRY],
    outfile,
    bundle: true,
    format,
    platform: 'neutral',
    target: ['es2022'],
    mainFields: ['module', 'main'],
    treeShaking: true,
    // Minified: the published file is what bundlers and Lambda packages take in (63 KB gzipped unminified
    // vs 41 KB). The public names survive (they are export names); `SpendguardRefusalError` sets its
    // `name` itself, so no `keepNames` (+3 KB gzipped).
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    banner: { js: '/* @service/sdk — Spendguard client. Bundled build; see docs/sdk.md. */' },
  };
}

/** Bundles both formats into `outdir`; returns their paths. */
export async function buildBundles(outdir: string): Promise<{ esm: string; cjs: string }> {
  mkdirSync(outdir, { recursive: true });
  const esm = join(outdir, 'index.mjs');
  const cjs = join(outdir, 'index.cjs');
  await Promise.all([build(esbuildOptions('esm', esm)), build(esbuildOptions('cjs', cjs))]);
  return { esm, cjs };
}

/** Writes `index.d.ts` and `index.d.mts` (one self-contained declaration file). */
export function buildDeclarations(outdir: string): string {
  const dts = join(outdir, 'index.d.ts');
  const bin = require.resolve('dts-bundle-generator/dist/bin/dts-bundle-generator.js');
  execFileSync(
    process.execPath,
    [bin, '--silent', '--no-banner', '--project', join(SDK_ROOT, 'tsconfig.build.json'), '-o', dts, ENTRY],
    {
      stdio: 'inherit',
    },
  );
  if (/from ['"]\.\.?\//.test(readFileSync(dts, 'utf8')))
    throw new Error('index.d.ts references a relative module');
  copyFileSync(dts, join(outdir, 'index.d.mts'));
  return dts;
}

if (require.main === module) {
  (async () => {
    const outdir = join(SDK_ROOT, 'dist');
    rmSync(outdir, { recursive: true, force: true });
    const { esm, cjs } = await buildBundles(outdir);
    const dts = buildDeclarations(outdir);
    for (const file of [esm, cjs, dts]) console.log(`${file}  ${statSync(file).size} bytes`);
  })().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
