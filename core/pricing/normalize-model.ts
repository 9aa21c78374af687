/**
 * Model-name normalization: the ordered list of (price list, name) pairs to try for one raw model name.
 *
 * The raw name is tried first, exactly as reported (lower-cased, trimmed), because a dated snapshot or
 * a fine-tune may have its own price (`gpt-4o-2024-05-13` costs twice `gpt-4o`). Then, in order:
 *
 * 1. routing suffixes dropped: OpenRouter's `:beta`, `:thinking`, `:extended`, `:free`, `:nitro`, …
 *    (the `:free` variants are priced exactly first, so dropping the suffix never makes a paid model free);
 * 2. resource paths dropped: `models/gemini-2.5-pro`, `projects/…/publishers/google/models/gemini-2.5-pro`;
 * 3. OpenAI fine-tunes `ft:gpt-4o-mini-2024-07-18:org::id` → the base model (the dataset's own `ft:` prices
 *    match at step 0 when it has them; otherwise the base model's price applies);
 * 4. Vertex `claude-3-5-sonnet@20240620` → `claude-3-5-sonnet-20240620`;
 * 5. vendor prefixes `openai/gpt-4o`, `meta-llama/llama-3.3-70b`: the rest is tried in the vendor's own
 *    price list (when it has one) and then in the requested provider's list;
 * 6. Bedrock ids `[region.]anthropic.claude-3-5-sonnet-20240620-v1:0` → `claude-3-5-sonnet-20240620`,
 *    tried in the requested list and then in the vendor's list; a foundation-model or system
 *    inference-profile ARN (`arn:aws:bedrock:us-east-1:…:inference-profile/us.anthropic.…`) first gives up
 *    its last segment (application-inference-profile ARNs name no model: `bedrock-profiles.ts`);
 * 7. for every name above: the compact date `-20240620` rewritten `-2024-06-20` (as genai-prices does),
 *    then the date removed (`gpt-4o-2024-08-06` → `gpt-4o`, `claude-sonnet-4-20250514` → `claude-sonnet-4`).
 *
 * The last, most reduced name is the `familyName` used by the fallback heuristics.
 */
import {
  BEDROCK_VENDORS,
  datasetProviderForBedrockVendor,
  datasetProviderForVendorPrefix,
} from './provider-ids';

/** Names longer than this are not looked up (garbage or abuse); they are priced by the catch-all. */
export const MAX_MODEL_NAME_LENGTH = 256;

/** Where to look a candidate name up: the requested provider's list, or a named dataset provider. */
export type CandidateList =
  { readonly kind: 'requested' } | { readonly kind: 'dataset'; readonly providerId: string };

/** One name to try, in one price list. */
export interface LookupCandidate {
  readonly model: string;
  readonly list: CandidateList;
}

/** The outcome of {@link normalizeModelName}. */
export interface NormalizedModelName {
  /** The raw name trimmed and lower-cased. */
  readonly canonical: string;
  /** Names to try, in order, without duplicates. */
  readonly candidates: readonly LookupCandidate[];
  /** The most reduced name (no vendor, region, path, fine-tune, suffix or date), for family heuristics. */
  readonly familyName: string;
}

const REQUESTED: CandidateList = { kind: 'requested' };

const ROUTING_SUFFIX_RE = /:(?:beta|thinking|extended|free|nitro|floor|online|exacto)$/;
const RESOURCE_PATH_RE = /^(?:.*\/)?models\//;
const BEDROCK_RE = new RegExp(
  `^(?:(?:us|eu|apac|ap|global|us-gov|jp|au|ca|regional)\\.)?(${BEDROCK_VENDORS.join('|')})\\.(.+?)(?:-v\\d+(?::\\d+)?)?(?::\\d+)?$`,
);
/** `arn:aws[-partition]:bedrock:<region>:<account>:(foundation-model|inference-profile)/<id>`. */
const BEDROCK_MODEL_ARN_RE =
  /^arn:aws[a-z-]*:bedrock:[a-z0-9-]*:\d*:(?:foundation-model|inference-profile)\/(.+)$/;
/** `-20240620` / `-2024-06-20` / `@20240620`, followed by the end, `-`, `:` or `@`. */
const DATE_RE = /[-@](20\d{2})-?(0[1-9]|1[0-2])-?(0[1-9]|[12]\d|3[01])(?=$|[-:@])/g;
const COMPACT_DATE_RE = /-(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=$|[-:])/g;

function dashDates(name: string): string {
  return name.replace(COMPACT_DATE_RE, '-$1-$2-$3');
}

function stripDates(name: string): string {
  return name.replace(DATE_RE, '');
}

function stripRoutingSuffix(name: string): string {
  return name.replace(ROUTING_SUFFIX_RE, '');
}

function fineTuneBase(name: string): string | null {
  if (!name.startsWith('ft:')) return null;
  const base = name.slice(3).split(':')[0] ?? '';
  return base.length > 0 ? base : null;
}

/**
 * Builds the ordered lookup candidates for a raw model name.
 *
 * @example normalizeModelName('openai/gpt-4o-2024-08-06').familyName === 'gpt-4o'
 */
export function normalizeModelName(raw: string): NormalizedModelName {
  const canonical = raw.trim().toLowerCase();
  if (canonical.length === 0 || canonical.length > MAX_MODEL_NAME_LENGTH) {
    return { canonical, candidates: [], familyName: canonical.slice(0, MAX_MODEL_NAME_LENGTH) };
  }
  const ordered: LookupCandidate[] = [];
  const seen = new Set<string>();
  const push = (model: string, list: CandidateList): void => {
    const key = `${list.kind === 'requested' ? '' : list.providerId}\u0000${model}`;
    if (model.length === 0 || seen.has(key)) return;
    seen.add(key);
    ordered.push({ model, list });
  };
  const pushWithDates = (model: string, list: CandidateList): void => {
    push(model, list);
    push(dashDates(model), list);
    push(stripDates(model), list);
  };

  // Steps 0–4 stay in the requested provider's list.
  let name = canonical;
  pushWithDates(name, REQUESTED);
  name = stripRoutingSuffix(name);
  pushWithDates(name, REQUESTED);
  name = name.replace(RESOURCE_PATH_RE, '');
  pushWithDates(name, REQUESTED);
  const ftBase = fineTuneBase(name);
  if (ftBase !== null) {
    name = ftBase;
    pushWithDates(name, REQUESTED);
  }
  if (name.includes('@')) {
    name = name.replace('@', '-');
    pushWithDates(name, REQUESTED);
  }

  // A Bedrock ARN that names its model (before step 5: the ARN's `/` is no vendor prefix).
  const arn = BEDROCK_MODEL_ARN_RE.exec(name);
  if (arn !== null) {
    name = arn[1] ?? name;
    pushWithDates(name, REQUESTED);
  }

  // Step 5: vendor prefix.
  const slash = name.indexOf('/');
  if (slash > 0) {
    const vendorList = datasetProviderForVendorPrefix(name.slice(0, slash));
    name = name.slice(name.lastIndexOf('/') + 1);
    if (vendorList !== null) pushWithDates(name, { kind: 'dataset', providerId: vendorList });
    pushWithDates(name, REQUESTED);
  }

  // Step 6: Bedrock id.
  const bedrock = BEDROCK_RE.exec(name);
  if (bedrock !== null) {
    const vendorList = datasetProviderForBedrockVendor(bedrock[1] ?? '');
    name = bedrock[2] ?? name;
    pushWithDates(name, REQUESTED);
    if (vendorList !== null) pushWithDates(name, { kind: 'dataset', providerId: vendorList });
  }

  return { canonical, candidates: ordered, familyName: stripDates(name) };
}
