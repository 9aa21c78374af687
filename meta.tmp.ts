import { build } from 'esbuild';
import { esbuildOptions } from '/work/main/sdk/scripts/build';
(async () => {
  const r = await build({ ...esbuildOptions('esm', '/tmp/x.mjs'), minify: true, metafile: true, write: true });
  const out = Object.values(r.metafile!.outputs)[0]!;
  const rows = Object.entries(out.inputs).map(([k, v]) => [k, v.bytesInOutput] as const).sort((a, b) => b[1] - a[1]);
  for (const [k, v] of rows.slice(0, 40)) console.log(String(v).padStart(8), k);
  console.log('total', out.bytes);
})();
