import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { esbuildOptions } from './sdk/scripts/build';
(async () => {
  const r = await build({ ...esbuildOptions('esm', '/tmp/z.mjs'), minify: true, write: false, metafile: true,
    plugins: [{ name: 'ext', setup(b) { b.onResolve({ filter: /core\// }, (a) => ({ path: a.path, external: true })); b.onResolve({ filter: /prices\.generated/ }, (a) => ({ path: a.path, external: true })); } }] });
  const code = r.outputFiles[0]!.contents;
  console.log('sdk only min', code.length, 'gz', gzipSync(code, { level: 9 }).length);
  const out = Object.values(r.metafile!.outputs)[0]!;
  for (const [k, v] of Object.entries(out.inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)) console.log(v.bytesInOutput, k);
  require('fs').writeFileSync('/tmp/sdkonly.mjs', code);
})();
