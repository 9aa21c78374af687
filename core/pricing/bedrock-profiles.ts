/**
 * Bedrock application inference profiles: an ARN
 * (`arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6`) that a customer
 * creates to tag and track spend. It names no model, so no price list can match it; it is resolved to the
 * model (or system inference profile) it copies before pricing, from the organization's mapping
 * (`OrgRates.bedrockProfiles`, filled from `GetInferenceProfile` by whoever may call it, or by hand).
 * Never priced as the unknown-model fallback when the mapping knows it.
 */

/** `arn:aws[-partition]:bedrock:<region>:<account>:application-inference-profile/<id>`. */
const APPLICATION_PROFILE_ARN =
  /^arn:aws[a-z-]*:bedrock:([a-z0-9-]+):(\d{12}):application-inference-profile\/([a-z0-9]+)$/i;

/** The parts of an application-inference-profile ARN, or null for any other model id. */
export function parseApplicationProfileArn(
  modelId: string,
): { readonly region: string; readonly account: string; readonly profileId: string } | null {
  const m = APPLICATION_PROFILE_ARN.exec(modelId.trim());
  if (m === null) return null;
  return { region: m[1] ?? '', account: m[2] ?? '', profileId: (m[3] ?? '').toLowerCase() };
}

/**
 * The model an application profile routes to, looked up in `profiles` by the whole ARN (lower-case)
 * or by the profile id alone; `modelId` itself when it is not such an ARN or the mapping lacks it.
 *
 * @example
 * resolveApplicationProfile('arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc',
 *   new Map([['abc', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0']])); // 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'
 */
export function resolveApplicationProfile(
  modelId: string,
  profiles: ReadonlyMap<string, string> | undefined,
): string {
  if (profiles === undefined || profiles.size === 0) return modelId;
  const arn = parseApplicationProfileArn(modelId);
  if (arn === null) return modelId;
  return profiles.get(modelId.trim().toLowerCase()) ?? profiles.get(arn.profileId) ?? modelId;
}

const FOUNDATION_MODEL_ARN = /^arn:aws[a-z-]*:bedrock:([a-z0-9-]+):\d*:foundation-model\/(.+)$/;

/** The geography prefix of a system cross-region profile, from the regions it routes to. */
function geographyOf(regions: readonly string[]): string {
  const all = (test: (r: string) => boolean) => regions.every(test);
  if (all((r) => r.startsWith('us-gov-'))) return 'us-gov.';
  if (all((r) => r.startsWith('us-'))) return 'us.';
  if (all((r) => r.startsWith('eu-'))) return 'eu.';
  if (all((r) => r === 'ap-northeast-1' || r === 'ap-northeast-3')) return 'jp.';
  if (all((r) => r === 'ap-southeast-2' || r === 'ap-southeast-4')) return 'au.';
  if (all((r) => r.startsWith('ap-'))) return 'apac.';
  if (all((r) => r.startsWith('ca-'))) return 'ca.';
  return 'global.';
}

/**
 * The model id to price an application profile as, from `GetInferenceProfile`'s `models` (the foundation
 * model ARNs it routes to, one per region): one region is the in-region model (`anthropic.claude-…`);
 * several regions of one geography its cross-region profile (`us.…`, `eu.…`, `jp.…`, `apac.…`: the
 * regional price); regions across geographies the global profile (`global.…`). Undefined when the list
 * names no foundation model or several different ones.
 *
 * @example
 * modelIdFromProfileModels([
 *   'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0',
 *   'arn:aws:bedrock:us-west-2::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0',
 * ]); // 'us.anthropic.claude-haiku-4-5-20251001-v1:0'
 */
export function modelIdFromProfileModels(modelArns: readonly string[]): string | undefined {
  const regions: string[] = [];
  let model: string | undefined;
  for (const arn of modelArns) {
    const m = FOUNDATION_MODEL_ARN.exec(arn);
    if (m === null) return undefined;
    if (model !== undefined && m[2] !== model) return undefined;
    model = m[2];
    if (!regions.includes(m[1] ?? '')) regions.push(m[1] ?? '');
  }
  if (model === undefined) return undefined;
  return regions.length === 1 ? model : `${geographyOf(regions)}${model}`;
}
