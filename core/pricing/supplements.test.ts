import { loadBundledProviders } from './bundled-data';
import { compileMatchLogic } from './match-logic';
import type { ModelData, PriceTableData } from './snapshot-schema';
import { PRICE_PATCHES, SUPPLEMENTAL_MODELS } from './supplements';

/**
 * The supplements fill gaps of genai-prices 0.1.8. When an upgrade closes a gap, these tests fail so
 * the supplement can be deleted (the dataset would win anyway, see supplements.ts).
 */
const providers = loadBundledProviders();
const modelOf = (provider: string, id: string): ModelData | undefined =>
  providers.find((p) => p.id === provider)?.models.find((m) => m.id === id);
const tablesOf = (model: ModelData): readonly PriceTableData[] =>
  Array.isArray(model.prices)
    ? (model.prices as { prices: PriceTableData }[]).map((e) => e.prices)
    : [model.prices as PriceTableData];

describe('supplements', () => {
  it.each(PRICE_PATCHES.flatMap((patch) => patch.modelIds.map((id) => [patch.provider, id, patch] as const)))(
    'patch for %s/%s targets a dataset model and still changes it',
    (provider, id, patch) => {
      const model = modelOf(provider, id);

      expect(model).toBeDefined();
      const changed = tablesOf(model as ModelData).some((table) => patch.apply(table) !== table);
      expect(changed).toBe(true);
    },
  );

  it.each(SUPPLEMENTAL_MODELS.map((extra) => [extra.provider, extra.model.id, extra] as const))(
    'supplemental model %s/%s is still missing from the dataset',
    (provider, id, extra) => {
      const list = providers.find((p) => p.id === provider)?.models ?? [];
      const probe = `${id}-2025-04-14:acme::abc`.replace('ft:o4-mini-2025-04-14', 'ft:o4-mini-2025-04-16');
      const matcher = compileMatchLogic(extra.model.match);

      expect(matcher(probe)).toBe(true);
      expect(list.some((model) => compileMatchLogic(model.match)(probe))).toBe(false);
    },
  );

  it('adds Anthropic long context as 2× input-side and 1.5× output above 200k', () => {
    const patch = PRICE_PATCHES.find((p) => p.modelIds.includes('claude-sonnet-4-0'));

    expect(
      patch?.apply({ input_mtok: 3, output_mtok: 15, cache_read_mtok: 0.3, cache_write_mtok: 3.75 }),
    ).toEqual({
      input_mtok: { base: 3, tiers: [{ start: 200_000, price: 6 }] },
      output_mtok: { base: 15, tiers: [{ start: 200_000, price: 22.5 }] },
      cache_read_mtok: { base: 0.3, tiers: [{ start: 200_000, price: 0.6 }] },
      cache_write_mtok: { base: 3.75, tiers: [{ start: 200_000, price: 7.5 }] },
    });
  });
});
