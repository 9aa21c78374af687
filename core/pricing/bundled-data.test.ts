import { waitForUpdate } from '@pydantic/genai-prices';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLED_DATA_VERSION, BUNDLED_PROVIDER_IDS, loadBundledProviders } from './bundled-data';

describe('bundled price data', () => {
  it('lists exactly the providers genai-prices ships (update BUNDLED_PROVIDER_IDS on upgrade)', async () => {
    const shipped = await waitForUpdate();

    expect(shipped?.map((provider) => provider.id)).toEqual(BUNDLED_PROVIDER_IDS);
  });

  it('names the installed package version', () => {
    const manifest = readFileSync(
      join(__dirname, '../../node_modules/@pydantic/genai-prices/package.json'),
      'utf8',
    );

    expect(BUNDLED_DATA_VERSION).toBe(
      `genai-prices@${(JSON.parse(manifest) as { version: string }).version}`,
    );
  });

  it('loads every provider once and keeps it', () => {
    const first = loadBundledProviders();

    expect(first.map((provider) => provider.id)).toEqual(BUNDLED_PROVIDER_IDS);
    expect(loadBundledProviders()).toBe(first);
  });
});
