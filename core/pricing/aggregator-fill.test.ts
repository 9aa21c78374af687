import { completeFromVendor } from './aggregator-fill';
import { getDefaultPriceRegistry } from './registry';

describe('aggregator entries completed from the vendor', () => {
  it('takes a missing cache price from the vendor', () => {
    expect(
      completeFromVendor(
        { input_mtok: 2.5, output_mtok: 10 },
        { input_mtok: 2.5, cache_read_mtok: 1.25, output_mtok: 10 },
      ),
    ).toEqual({
      input_mtok: 2.5,
      output_mtok: 10,
      cache_read_mtok: 1.25,
    });
  });

  it("gives a price equal to the vendor's base the vendor's long-context tiers", () => {
    const vendor = { input_mtok: { base: 1.25, tiers: [{ start: 200_000, price: 2.5 }] }, output_mtok: 10 };

    expect(completeFromVendor({ input_mtok: 1.25, output_mtok: 10 }, vendor)).toEqual({
      input_mtok: vendor.input_mtok,
      output_mtok: 10,
    });
  });

  it("never changes a price of the aggregator's own", () => {
    const own = { input_mtok: 1.5, output_mtok: 10, cache_read_mtok: 0.31 };
    const vendor = {
      input_mtok: { base: 1.25, tiers: [{ start: 200_000, price: 2.5 }] },
      cache_read_mtok: 0.125,
      output_mtok: 10,
    };

    expect(completeFromVendor(own, vendor)).toBe(own);
  });

  it('completes the bundled OpenRouter entries of gpt-4o (cache) and gemini-2.5-pro (band)', () => {
    const registry = getDefaultPriceRegistry();
    const gpt4o = registry.resolve('openrouter', 'openai/gpt-4o').fixedPrice;
    const gemini = registry.resolve('openrouter', 'google/gemini-2.5-pro').fixedPrice;

    expect(gpt4o?.base.cacheRead).toBe(1_250_000); // $1.25/MTok in pico-USD per token
    expect(gemini?.longContext.map((b) => [b.aboveInputTokens, b.rates.input, b.rates.output])).toEqual([
      [200_000, 2_500_000, 15_000_000],
    ]);
  });
});
