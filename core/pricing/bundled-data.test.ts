import { waitForUpdate } from '@pydantic/genai-prices';
import { BUNDLED_PROVIDER_IDS, loadBundledProviders } from './bundled-data';

describe('bundled price data', () => {
  it('lists exactly the providers genai-prices ships (update BUNDLED_PROVIDER_IDS on upgrade)', async () => {
    const shipped = await waitForUpdate();

    expect(shipped?.map((provider) => provider.id)).toEqual(BUNDLED_PROVIDER_IDS);
  });

  it('loads every provider once and keeps it', () => {
    const first = loadBundledProviders();

    expect(first.map((provider) => provider.id)).toEqual(BUNDLED_PROVIDER_IDS);
    expect(loadBundledProviders()).toBe(first);
  });
});
