/**
 * Proxy routes for Amazon Bedrock, whose host names a region:
 * - `/bedrock/<region>/<runtime path>` → `https://bedrock-runtime.<region>.amazonaws.com/<runtime path>`
 * - `/bedrock-mantle/<region>/<path>` → `https://bedrock-mantle.<region>.api.aws/<path>`
 *
 * The region is validated strictly ({@link BEDROCK_REGION}) before it becomes part of a host name, so no
 * request can steer the relay to another host (SSRF). An override base URL (`SPENDGUARD_UPSTREAM_BEDROCK`,
 * the mock providers) replaces the host for every region; the region segment is then dropped.
 */

/** An AWS region name: `us-east-1`, `eu-central-2`, `ap-southeast-3`, `us-gov-west-1`. */
export const BEDROCK_REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;

/** The two proxy slugs Bedrock answers on. */
export const BEDROCK_SLUGS = ['bedrock', 'bedrock-mantle'] as const;

/** Where one Bedrock request goes. */
export interface BedrockTarget {
  /** Upstream base URL (no trailing slash). */
  readonly base: string;
  /** Provider path with the query, e.g. `/model/us.amazon.nova-pro-v1:0/converse`. */
  readonly rest: string;
}

/** Whether a proxy URL is on a Bedrock route (its refusals are shaped for the AWS SDK). */
export function isBedrockUrl(url: string): boolean {
  return url.startsWith('/bedrock/') || url.startsWith('/bedrock-mantle/');
}

/**
 * The upstream of a Bedrock proxy URL, or a reason it is refused (an unknown slug returns undefined).
 *
 * @param overrides upstream base URLs by slug (`bedrock`, `bedrock-mantle`); `bedrock`'s also serves mantle
 * @example bedrockTarget('/bedrock/us-east-1/model/x/converse', {}) // { base: 'https://bedrock-runtime.us-east-1.amazonaws.com', rest: '/model/x/converse' }
 */
export function bedrockTarget(
  url: string,
  overrides: Readonly<Partial<Record<string, string>>> = {},
): BedrockTarget | { readonly error: string } | undefined {
  const slug = url.startsWith('/bedrock/')
    ? 'bedrock'
    : url.startsWith('/bedrock-mantle/')
      ? 'bedrock-mantle'
      : undefined;
  if (slug === undefined) return undefined;
  const after = url.slice(slug.length + 2);
  const cut = after.search(/[/?]/);
  const region = cut === -1 ? after : after.slice(0, cut);
  if (!BEDROCK_REGION.test(region)) {
    return {
      error: `'${region.slice(0, 40)}' is not an AWS region: use /${slug}/<region>/<path>, e.g. /${slug}/us-east-1/…`,
    };
  }
  let rest = cut === -1 ? '/' : after.slice(cut);
  if (rest.charCodeAt(0) === 63 /* ? */) rest = '/' + rest;
  // `bedrock_mantle` is how the environment spells the slug (`SPENDGUARD_UPSTREAM_BEDROCK_MANTLE`).
  const override =
    overrides[slug] ??
    (slug === 'bedrock-mantle' ? overrides.bedrock_mantle : undefined) ??
    overrides.bedrock;
  const base =
    override !== undefined
      ? override.replace(/\/+$/, '')
      : slug === 'bedrock'
        ? `https://bedrock-runtime.${region}.amazonaws.com`
        : `https://bedrock-mantle.${region}.api.aws`;
  return { base, rest };
}
