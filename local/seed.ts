import { randomBytes } from 'node:crypto';
import { generateApiKey, hashApiKey, parseApiKey, verifyApiKey } from '../core/keys';
import type { Services } from '../lambdas/shared/services';

export const LOCAL_ORG_ID = 'org_local';

/**
 * The local organization and its API key. The raw key exists only in `<dataDir>/local.json` (what a user
 * would have copied from the dashboard); storage keeps its HMAC. A restart reuses that key if it still
 * verifies, and creates a new one otherwise.
 */
export async function seedLocalOrganization(
  services: Services,
  pepper: string,
  previousKey: string | undefined,
): Promise<{ orgId: string; apiKey: string }> {
  if (previousKey) {
    const parsed = parseApiKey(previousKey);
    const record = parsed.ok ? await services.keys.get(parsed.publicId) : undefined;
    if (
      record &&
      record.revokedAt === null &&
      record.orgId === LOCAL_ORG_ID &&
      verifyApiKey(previousKey, record.hash, pepper)
    ) {
      return { orgId: LOCAL_ORG_ID, apiKey: previousKey };
    }
  }
  await services.orgs.ensure(LOCAL_ORG_ID, new Date(services.now()).toISOString());
  const key = generateApiKey((n) => randomBytes(n));
  await services.keys.create({
    publicId: key.publicId,
    orgId: LOCAL_ORG_ID,
    prefix: key.prefix,
    hash: hashApiKey(key.apiKey, pepper),
    name: 'local',
    createdAt: new Date(services.now()).toISOString(),
    revokedAt: null,
  });
  return { orgId: LOCAL_ORG_ID, apiKey: key.apiKey };
}
