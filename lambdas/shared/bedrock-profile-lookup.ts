/**
 * Resolves Bedrock application-inference-profile ARNs to the model to price them as, with
 * `GetInferenceProfile` (IAM `bedrock:GetInferenceProfile` on the account's application profiles), for
 * the profiles an organization has not mapped itself (`OrgRates.bedrockProfiles`). Where the call is not
 * allowed (another account's profile, no permission) the profile stays unresolved: priced by the
 * organization's mapping or the fallback, never failing the record.
 *
 * Answers are kept per container (profiles do not change model); a refusal is remembered for an hour so
 * that a denied lookup is not repeated per event.
 */
import { BedrockClient, GetInferenceProfileCommand } from '@aws-sdk/client-bedrock';
import { modelIdFromProfileModels, parseApplicationProfileArn } from '../../core/pricing/bedrock-profiles';

/** Looks one application profile up; undefined when it cannot be resolved. Never rejects. */
export interface BedrockProfileLookup {
  modelOf(profileArn: string): Promise<string | undefined>;
}

const DENIED_TTL_MS = 60 * 60 * 1000;
/** Most profiles remembered per container. */
const MAX_CACHED = 1000;

export interface GetInferenceProfileLookupOptions {
  /** A client per region (the profile's region is in its ARN). @default new BedrockClient({ region }) */
  readonly clientFor?: (region: string) => Pick<BedrockClient, 'send'>;
  readonly now?: () => number;
}

/** The lookup over `GetInferenceProfile`. */
export function getInferenceProfileLookup(opts: GetInferenceProfileLookupOptions = {}): BedrockProfileLookup {
  const clients = new Map<string, Pick<BedrockClient, 'send'>>();
  const clientFor =
    opts.clientFor ??
    ((region: string) => {
      let c = clients.get(region);
      if (c === undefined) {
        c = new BedrockClient({ region });
        clients.set(region, c);
      }
      return c;
    });
  const now = opts.now ?? Date.now;
  const resolved = new Map<string, string>();
  const denied = new Map<string, number>();
  return {
    async modelOf(profileArn: string): Promise<string | undefined> {
      const arn = parseApplicationProfileArn(profileArn);
      if (arn === null) return undefined;
      const key = profileArn.trim().toLowerCase();
      const known = resolved.get(key);
      if (known !== undefined) return known;
      const deniedAt = denied.get(key);
      if (deniedAt !== undefined && now() - deniedAt < DENIED_TTL_MS) return undefined;
      try {
        const out = await clientFor(arn.region).send(
          new GetInferenceProfileCommand({ inferenceProfileIdentifier: profileArn.trim() }),
        );
        const model = modelIdFromProfileModels((out.models ?? []).map((m) => m.modelArn ?? ''));
        if (model === undefined) throw new Error('no single model');
        if (resolved.size >= MAX_CACHED) resolved.clear();
        resolved.set(key, model);
        return model;
      } catch {
        if (denied.size >= MAX_CACHED) denied.clear();
        denied.set(key, now());
        return undefined;
      }
    },
  };
}
