import type { AuthConfig, RuntimeConfig } from './api/types';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Fetches and checks `./config.json`, the runtime configuration written next to index.html by the
 * local stack or the CDK deployment: `{apiUrl, proxyUrl, auth}`.
 */
export async function loadConfig(url = './config.json'): Promise<RuntimeConfig> {
  let response: Response;
  try {
    response = await fetch(url, { cache: 'no-store', headers: { accept: 'application/json' } });
  } catch (err) {
    throw new ConfigError(`Could not load ${url}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!response.ok) throw new ConfigError(`Could not load ${url}: HTTP ${response.status}`);
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    throw new ConfigError(`${url} is not valid JSON`);
  }
  return parseConfig(json);
}

export function parseConfig(value: unknown): RuntimeConfig {
  const r = (value ?? {}) as Record<string, unknown>;
  if (typeof r.apiUrl !== 'string') throw new ConfigError('config.json: apiUrl must be a string');
  const auth = (r.auth ?? {}) as Record<string, unknown>;
  let parsed: AuthConfig;
  if (auth.mode === 'local') {
    if (typeof auth.idToken !== 'string' || !auth.idToken)
      throw new ConfigError('config.json: auth.idToken is missing');
    parsed = { mode: 'local', idToken: auth.idToken };
  } else if (auth.mode === 'cognito') {
    for (const field of ['region', 'userPoolId', 'clientId', 'domain'] as const) {
      if (typeof auth[field] !== 'string' || !auth[field])
        throw new ConfigError(`config.json: auth.${field} is missing`);
    }
    parsed = {
      mode: 'cognito',
      region: auth.region as string,
      userPoolId: auth.userPoolId as string,
      clientId: auth.clientId as string,
      domain: auth.domain as string,
    };
  } else {
    throw new ConfigError('config.json: auth.mode must be "local" or "cognito"');
  }
  return { apiUrl: r.apiUrl, proxyUrl: typeof r.proxyUrl === 'string' ? r.proxyUrl : '', auth: parsed };
}
