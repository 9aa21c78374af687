import { compileOrgRates, type CompiledOrgRates } from '../../core/pricing';
import { parseApplicationProfileArn } from '../../core/pricing/bedrock-profiles';
import type { BedrockProfileLookup } from './bedrock-profile-lookup';
import type { PricingRatesStore } from './stores/pricing-rates-store';

/**
 * The compiled pricing rates of an organization, read fresh for each Kinesis record (one consistent
 * GetItem; a rate saved through `PUT /v1/pricing/rates` applies to the next record). Absent or invalid
 * stored rates give null: the event is priced from the registry, never failed.
 */
export async function orgRatesFor(
  store: PricingRatesStore | undefined,
  orgId: string,
): Promise<CompiledOrgRates | null> {
  if (store === undefined) return null;
  const record = await store.get(orgId);
  if (record === undefined || record.rates === null || typeof record.rates !== 'object') return null;
  try {
    return compileOrgRates(record.rates);
  } catch {
    return null;
  }
}

/**
 * The rates with the Bedrock application profiles of `models` that the organization has not mapped
 * resolved through `lookup` (GetInferenceProfile where allowed), so that they are priced as the model
 * they route to. The stored mapping wins; nothing is written back. Never rejects.
 */
export async function withBedrockProfiles(
  rates: CompiledOrgRates | null,
  models: Iterable<string | null | undefined>,
  lookup: BedrockProfileLookup | undefined,
): Promise<CompiledOrgRates | null> {
  if (lookup === undefined) return rates;
  const mapped = rates?.bedrockProfiles;
  const found = new Map<string, string>();
  for (const model of new Set(models)) {
    if (typeof model !== 'string') continue;
    const arn = parseApplicationProfileArn(model);
    const key = model.trim().toLowerCase();
    if (arn === null || found.has(key) || mapped?.has(key) || mapped?.has(arn.profileId)) continue;
    const resolved = await lookup.modelOf(model).catch(() => undefined);
    if (resolved !== undefined) found.set(key, resolved);
  }
  if (found.size === 0) return rates;
  const base = rates ?? compileOrgRates({});
  return { ...base, bedrockProfiles: new Map([...base.bedrockProfiles, ...found]) };
}
