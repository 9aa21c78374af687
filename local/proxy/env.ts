/**
 * Reading the proxy's upstream overrides from the environment, for the CLI wiring only (the proxy
 * itself takes them as options): `SPENDGUARD_UPSTREAM_<ID>` for every catalog provider, e.g.
 * `SPENDGUARD_UPSTREAM_OPENAI=http://127.0.0.1:9000/openai`.
 */
import { PROVIDER_IDS } from '../../core/providers';

/** The variable that overrides provider `id`'s upstream. */
export function upstreamEnvName(id: string): string {
  return `SPENDGUARD_UPSTREAM_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * Upstream base URLs set in `env`, by provider slug.
 *
 * @example upstreamsFromEnv({ SPENDGUARD_UPSTREAM_OPENAI: 'http://127.0.0.1:9000' }) // { openai: 'http://127.0.0.1:9000' }
 */
export function upstreamsFromEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const id of PROVIDER_IDS) {
    const value = env[upstreamEnvName(id)];
    if (value !== undefined && value.trim().length > 0) out[id] = value.trim();
  }
  return out;
}
