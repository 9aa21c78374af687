import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { esbuildOptions } from './sdk/scripts/build';
async function size(contents: string): Promise<number> {
  const r = await build({ ...esbuildOptions('esm', '/tmp/y.mjs'), entryPoints: undefined, stdin: { contents, resolveDir: '/work/main/sdk/src', loader: 'ts' }, minify: true, write: false });
  return gzipSync(r.outputFiles[0]!.contents, { level: 9 }).length;
}
(async () => {
  console.log('full', await size(`export * from './index';`));
  console.log('no verify', await size(`export { initServiceAuto, wrapFetch, flush, shutdown, withSpendguard, spendguardMiddleware } from './index';`));
  console.log('init only', await size(`export { initServiceAuto } from './index';`));
  console.log('fallback only', await size(`export { FALLBACK_FAMILIES } from '../../core/pricing/fallback';`));
  console.log('usage extract', await size(`export { createUsageStream, parseUsageJson } from '../../core/usage/extract'; export {detectProvider} from '../../core/providers/catalog';`));
  console.log('prices', await size(`export { PRICE_ROWS } from './prices.generated';`));
  console.log('pricing.ts', await size(`export { estimateCost } from './pricing';`));
})();
(async () => {
  console.log('core-only', await size(`
export { createUsageStream, parseUsageJson } from '../../core/usage/extract';
export { detectProvider, getProvider, requestFlavorOf } from '../../core/providers/catalog';
export { estimateRequestTokens, familyOfModel } from '../../core/usage/estimate';
export { makeUsage, requestedModel, requestJson } from '../../core/usage/normalize';
export { FLAVOR_SPECS, normalizeOptionModel, geminiModelFromPath } from '../../core/fingerprint/flavors';
export { parseApiKey } from '../../core/keys/api-key';
export { estimateCost } from './pricing';
export { usdToNanos } from '../../core/pricing/money';
`));
})();
