/**
 * `verifyService`: checks the setup step by step and says what is wrong, without throwing.
 *
 * 1. `apiKeyFormat`: the key looks like `abn_<publicId>_<secret>`;
 * 2. `endpoint`: an http(s) base URL is configured;
 * 3. `backendReachable`: `GET <endpoint>/v1/health` answers 200;
 * 4. `apiKeyAccepted`: `GET <endpoint>/v1/budget` with the key answers 200 (401: unknown or revoked);
 * 5. `organizationActive`: the organization is not SUSPENDED by a guardrail.
 * A check that cannot run because an earlier one failed is reported as skipped (`ok: false`).
 */
import { parseApiKey, type ApiKeyParseFailure } from '../../core/keys/api-key';
import { originalFetch } from './api';
import { createLogger } from './log';
import { parseBaseUrl } from './options';
import { envVar } from './runtime';
import { fetchOrgStatus } from './server-status';
import type { FetchLike, OrgStatus, VerifyCheck, VerifyOptions, VerifyResult } from './types';

const KEY_PROBLEMS: Readonly<Record<ApiKeyParseFailure, string>> = {
  not_a_string: 'the API key must be a string',
  wrong_length: 'the API key has the wrong length: expected 60 characters, abn_<12-character id>_<43-character secret> (copy the whole key from the dashboard)',
  wrong_prefix: 'the API key must start with abn_ (is this a provider key instead of a Spendguard key?)',
  bad_public_id: 'the public id (after abn_) must be 12 characters a-z, 0-9',
  bad_secret: 'the secret (after the second _) must be 43 characters 0-9, A-Z, a-z',
};

/**
 * Verifies the API key and the backend. Never throws: every problem is a failed check with a message.
 *
 * @example
 * const result = await verifyService({ apiKey: process.env.SPENDGUARD_API_KEY, endpoint });
 * if (!result.ok) console.error(result.checks.filter((c) => !c.ok).map((c) => c.message).join('\n'));
 */
export async function verifyService(options?: VerifyOptions): Promise<VerifyResult> {
  const checks: VerifyCheck[] = [];
  let orgStatus: OrgStatus | undefined;
  try {
    const opts = typeof options === 'object' && options !== null ? options : {};
    const log = createLogger(() => opts.debug === true);
    const timeoutMs = typeof opts.timeoutMs === 'number' && opts.timeoutMs > 0 ? opts.timeoutMs : 5000;
    const fetchFn: FetchLike | undefined = typeof opts.fetch === 'function' ? opts.fetch : originalFetch();

    const apiKey = (typeof opts.apiKey === 'string' ? opts.apiKey.trim() : undefined) || envVar('SPENDGUARD_API_KEY');
    const parsed = apiKey === undefined ? undefined : parseApiKey(apiKey);
    const keyOk = parsed?.ok === true;
    checks.push({
      name: 'apiKeyFormat',
      ok: keyOk,
      message:
        parsed === undefined
          ? 'no API key: pass apiKey or set SPENDGUARD_API_KEY (dashboard: Settings, API Keys)'
          : parsed.ok
            ? `API key ${parsed.prefix}_**** has the abn_<publicId>_<secret> format`
            : KEY_PROBLEMS[parsed.reason],
    });

    const rawEndpoint = (typeof opts.endpoint === 'string' ? opts.endpoint : undefined) ?? envVar('SPENDGUARD_ENDPOINT');
    const endpoint = rawEndpoint === undefined ? null : parseBaseUrl(rawEndpoint);
    checks.push({
      name: 'endpoint',
      ok: endpoint !== null,
      message:
        rawEndpoint === undefined
          ? 'no endpoint: pass endpoint or set SPENDGUARD_ENDPOINT (the API URL of your deployment)'
          : endpoint === null
            ? `endpoint ${JSON.stringify(rawEndpoint)} is not an http(s) URL`
            : `endpoint ${endpoint}`,
    });

    let reachable = false;
    if (endpoint === null || fetchFn === undefined) {
      checks.push({
        name: 'backendReachable',
        ok: false,
        message: fetchFn === undefined ? 'no fetch available in this runtime' : 'skipped: no valid endpoint',
      });
    } else {
      const health = await timedGet(fetchFn, `${endpoint}/v1/health`, undefined, timeoutMs);
      reachable = health.ok;
      checks.push({
        name: 'backendReachable',
        ok: health.ok,
        message: health.ok
          ? `GET /v1/health answered ${health.status}`
          : health.status !== undefined
            ? `GET /v1/health answered HTTP ${health.status} (is the endpoint the Spendguard API?)`
            : `GET /v1/health failed: ${health.reason} (network, DNS, TLS or a wrong endpoint)`,
      });
    }

    if (!keyOk || !reachable || endpoint === null || fetchFn === undefined || apiKey === undefined) {
      checks.push({ name: 'apiKeyAccepted', ok: false, message: 'skipped: key format or backend check failed' });
    } else {
      const result = await fetchOrgStatus(fetchFn, `${endpoint}/v1/budget`, apiKey, timeoutMs);
      if (result.kind === 'ok') {
        checks.push({ name: 'apiKeyAccepted', ok: true, message: 'the backend accepted the API key' });
        orgStatus = result.status;
        const suspended = result.flagState === 'SUSPENDED';
        checks.push({
          name: 'organizationActive',
          ok: !suspended,
          message: suspended
            ? 'the organization is SUSPENDED by a guardrail: calls are blocked until the flag expires or is cleared in the dashboard'
            : `organization status ${result.status.status}`,
        });
      } else {
        const status = result.kind === 'http' ? result.status : undefined;
        checks.push({
          name: 'apiKeyAccepted',
          ok: false,
          message:
            status === 401 || status === 403
              ? `the backend rejected the API key (HTTP ${status}): unknown or revoked key, or a key of another deployment`
              : status !== undefined
                ? `GET /v1/budget answered HTTP ${status}`
                : `GET /v1/budget failed: ${result.kind === 'error' ? result.reason : 'unknown error'}`,
        });
      }
    }
    for (const c of checks) log.debug(`verify ${c.name}: ${c.ok ? 'ok' : 'FAILED'}: ${c.message}`);
  } catch (err) {
    checks.push({
      name: 'backendReachable',
      ok: false,
      message: `verification failed unexpectedly: ${err instanceof Error ? err.message : String(err)}`,
    });
  }
  const result: VerifyResult = { ok: checks.length > 0 && checks.every((c) => c.ok), checks };
  if (orgStatus !== undefined) result.orgStatus = orgStatus;
  return result;
}

type GetResult = { ok: boolean; status?: number; reason?: string };

async function timedGet(fetchFn: FetchLike, url: string, apiKey: string | undefined, timeoutMs: number): Promise<GetResult> {
  const controller = typeof AbortController === 'function' ? new AbortController() : undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller?.abort();
        reject(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    const init: RequestInit = { method: 'GET', headers: apiKey === undefined ? {} : { 'Service-API-Key': apiKey } };
    if (controller !== undefined) init.signal = controller.signal;
    const response = await Promise.race([fetchFn(url, init), timeout]);
    void response.body?.cancel().catch(() => undefined);
    return { ok: response.status === 200, status: response.status };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : 'request failed' };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
