/**
 * Measures `@service/sdk`'s bundles and what they are made of (docs/sdk.md, "Bundle size"):
 * - the published files (`index.mjs`, `index.cjs`, as `sdk/scripts/build.ts` writes them): raw and gzipped;
 * - the guarded figure (`sdk/test/bundle.test.ts`): an application importing `initServiceAuto`, `wrapFetch`
 *   and `flush`, minified, gzipped (level 9);
 * - that bundle's inputs, largest first: minified bytes (esbuild's metafile) and each file's share of the
 *   gzipped size (what the gzipped bundle loses without it, measured on the same build with its module
 *   boundaries kept, scaled so that the shares add up to the whole).
 *
 * Run with `npx tsx sdk/scripts/size.ts` (`--all` lists every input, not only the largest 25).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions } from 'esbuild';
import { bundle, buildBundles, esbuildOptions, lazyModuleOptions, SDK_ROOT, type BuiltFile } from './build';

/** What an application typically imports; the size guard's entry. */
export const APP_IMPORTS = "export { initServiceAuto, wrapFetch, flush } from './index';";

const gzip = (data: string | Uint8Array): number => gzipSync(data, { level: 9 }).length;

/** The guarded bundle's options: the published ESM settings, entered through {@link APP_IMPORTS}. */
export function appBundleOptions(outdir: string): BuildOptions & { write: false } {
  return {
    ...esbuildOptions('esm', outdir),
    entryPoints: undefined,
    stdin: { contents: APP_IMPORTS, resolveDir: join(SDK_ROOT, 'src'), loader: 'ts' },
  };
}

/**
 * The guarded bundle: the entry an application loads at start, and the module it loads on demand (the
 * admission readers, once a hard cap may apply), as the published ESM build makes them.
 */
export async function appBundle(): Promise<{ entry: BuiltFile; chunks: BuiltFile[] }> {
  const outdir = join(tmpdir(), 'sdk-size-app');
  const [[entry], chunks] = await Promise.all([
    bundle(appBundleOptions(outdir), 'esm'),
    bundle(lazyModuleOptions(outdir), 'esm'),
  ]);
  return { entry: entry!, chunks };
}

interface InputShare {
  readonly file: string;
  readonly minifiedBytes: number;
  readonly gzipShare: number;
}

/** The guarded bundle's entry: its size and its inputs, largest gzipped share first. */
export async function appBundleBreakdown(): Promise<{
  minified: number;
  gzipped: number;
  chunks: { file: string; minified: number; gzipped: number }[];
  inputs: InputShare[];
}> {
  const outdir = join(tmpdir(), 'sdk-size-app');
  const { entry, chunks } = await appBundle();
  const meta = await build({ ...appBundleOptions(outdir), metafile: true });
  const entryMeta = Object.values(meta.metafile.outputs)[0]!;
  const gzipped = gzip(entry.text);
  // Same build with line breaks and esbuild's `// path` markers kept, so each file's part can be cut out.
  const marked = await build({
    ...appBundleOptions(outdir),
    minify: false,
    minifySyntax: true,
    minifyIdentifiers: true,
  });
  const text = marked.outputFiles[0]!.text;
  const parts = text.split(/^(?=\/\/ (?:\.\.\/)*(?:sdk|src|core|node_modules)\/)/m);
  const whole = gzip(text);
  const marginal = new Map<string, number>();
  for (let i = 0; i < parts.length; i++) {
    const file = /^\/\/ ((?:\.\.\/)*\S+)/.exec(parts[i]!)?.[1];
    if (file === undefined) continue;
    marginal.set(file, whole - gzip(parts.filter((_, j) => j !== i).join('')));
  }
  const total = [...marginal.values()].reduce((a, b) => a + b, 0);
  return {
    minified: entry.text.length,
    gzipped,
    chunks: chunks.map((c) => ({
      file: relative(outdir, c.path),
      minified: c.text.length,
      gzipped: gzip(c.text),
    })),
    inputs: Object.entries(entryMeta.inputs)
      .map(([file, info]) => ({
        file,
        minifiedBytes: info.bytesInOutput,
        gzipShare: Math.round(((marginal.get(file) ?? 0) * gzipped) / total),
      }))
      .filter((i) => i.minifiedBytes > 0)
      .sort((a, b) => b.gzipShare - a.gzipShare),
  };
}

if (require.main === module) {
  (async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'sdk-size-'));
    try {
      await buildBundles(outdir);
      console.log('published file                      raw bytes   gzipped');
      for (const name of readdirSync(outdir).sort()) {
        const data = readFileSync(join(outdir, name));
        console.log(`${name.padEnd(34)}  ${String(data.length).padStart(9)}  ${gzip(data)}`);
      }
      const app = await appBundleBreakdown();
      console.log(
        `\ninitServiceAuto + wrapFetch + flush (guarded, the entry): ${app.minified} bytes minified, ${app.gzipped} gzipped`,
      );
      for (const c of app.chunks)
        console.log(`  + loaded on demand: ${c.file}, ${c.minified} bytes minified, ${c.gzipped} gzipped`);
      const groups = new Map<string, [number, number]>();
      for (const i of app.inputs) {
        const path = i.file.replace(/^(?:\.\.\/)+/, '').replace(/^src\//, 'sdk/src/');
        const group = path.replace(/^(node_modules\/(?:@[^/]+\/)?[^/]+|sdk\/src|core\/[^/]+).*$/, '$1');
        const [m, g] = groups.get(group) ?? [0, 0];
        groups.set(group, [m + i.minifiedBytes, g + i.gzipShare]);
      }
      console.log('\nby area                    minified  gzip share');
      for (const [group, [m, g]] of [...groups].sort((a, b) => b[1][1] - a[1][1]))
        console.log(`${group.padEnd(26)} ${String(m).padStart(8)}  ${String(g).padStart(10)}`);
      console.log('\nby file                                      minified  gzip share');
      const shown = process.argv.includes('--all') ? app.inputs : app.inputs.slice(0, 25);
      for (const i of shown)
        console.log(
          `${i.file.padEnd(44)} ${String(i.minifiedBytes).padStart(8)}  ${String(i.gzipShare).padStart(10)}`,
        );
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  })().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
