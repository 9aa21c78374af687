import { loadBundledProviders } from './bundled-data';
import { parsePriceSnapshot, priceSnapshotSchema, type ProviderData } from './index';

/** The bundled data as the weekly refresh would store it: plain JSON. */
const bundledJson = (): unknown => JSON.parse(JSON.stringify(loadBundledProviders())) as unknown;

describe('priceSnapshotSchema', () => {
  it('accepts the bundled dataset', () => {
    expect(priceSnapshotSchema.safeParse(bundledJson()).success).toBe(true);
  });

  it('accepts the data.json constraint form without `type`', () => {
    const data = bundledJson() as { models: { prices: unknown }[] }[];
    const model = data[0]?.models[0];
    if (model === undefined) throw new Error('no model');
    model.prices = [
      { prices: { input_mtok: 1, output_mtok: 2 } },
      { constraint: { start_date: '2026-01-01' }, prices: { input_mtok: 2, output_mtok: 4 } },
      {
        constraint: { start_time: '16:30:00Z', end_time: '00:30:00Z' },
        prices: { input_mtok: 1, output_mtok: 1 },
      },
    ];

    expect(parsePriceSnapshot(data).ok).toBe(true);
  });

  it('parses JSON text', () => {
    expect(parsePriceSnapshot(JSON.stringify(bundledJson())).ok).toBe(true);
    expect(parsePriceSnapshot('{not json')).toEqual({
      ok: false,
      error: expect.stringContaining('not valid JSON'),
    });
  });

  it.each<[string, (data: ProviderData[]) => unknown]>([
    ['a truncated snapshot', (data) => data.filter((p) => p.id !== 'anthropic')],
    ['too few models', (data) => data.map((p) => ({ ...p, models: p.models.slice(0, 1) }))],
    ['a duplicate provider', (data) => [...data, data[0]]],
    ['a negative price', (data) => withFirstModel(data, { prices: { input_mtok: -1 } })],
    ['a price that is not a number', (data) => withFirstModel(data, { prices: { input_mtok: '3' } })],
    ['an invalid regex', (data) => withFirstModel(data, { match: { regex: '([' } })],
    ['an unknown match clause', (data) => withFirstModel(data, { match: { fuzzy: 'gpt' } })],
    [
      'a tier starting at a fraction',
      (data) =>
        withFirstModel(data, { prices: { input_mtok: { base: 1, tiers: [{ start: 1.5, price: 2 }] } } }),
    ],
    [
      'an invalid date',
      (data) => withFirstModel(data, { prices: [{ constraint: { start_date: '2025-13-45' }, prices: {} }] }),
    ],
    ['not an array', () => ({ providers: [] })],
  ])('rejects %s', (_label, mutate) => {
    const result = parsePriceSnapshot(mutate(bundledJson() as ProviderData[]));

    expect(result.ok).toBe(false);
  });
});

function withFirstModel(data: ProviderData[], patch: Record<string, unknown>): unknown {
  const [first, ...rest] = data;
  if (first === undefined) throw new Error('empty');
  const [model, ...models] = first.models;
  return [{ ...first, models: [{ ...model, ...patch }, ...models] }, ...rest];
}
