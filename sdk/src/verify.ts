/**
 * `verifyService`: checks the setup step by step and says what is wrong, without throwing.
 *
 * 1. `apiKeyFormat`: the key is `abn_<12-character public id>_<43-character secret>` (core/keys);
 * 2. `endpoint`: an http(s) base URL is configured;
 * 3. `backendReachable`: `GET <endpoint>/v1/health` answers 200;
 * 4. `apiKeyAccepted`: `GET <endpoint>/v1/budget` with the key answers 200 (401: unknown or revoked; 403: a key
 *    without the ingest scope the SDK's events need, such as a proxy-only key);
 * 5. `organizationActive`: no guardrail has SUSPENDED the organization.
 * A check that cannot run because an earlier one failed is reported as failed, "skipped".
 */
import { parseApiKey, type ApiKeyParseFailure } from '../../core/keys/api-key';
import { originalFetch } from './api';
import { drain, timedRequest } from './http';
import { createLogger } from './log';
import { parseBaseUrl } from './options';
import { envVar } from './runtime';
import { fetchOrgStatus } from './server-status';
import type { FetchLike, VerifyCheck, VerifyOptions, VerifyResult } from './types';

const KEY_PROBLEMS: Readonly<Record<ApiKeyParseFailure, string>> = {
  not_a_string: 'must be a string',
  wrong_length: 'wrong length (copy the whole key from the dashboard)',
  wrong_prefix: 'must start with abn_ (a provider key?)',
  bad_public_id: 'the public id after abn_ must be 12 characters a-z 0-9',
  bad_secret: 'the secret must be 43 characters 0-9 A-Z a-z',
};

/**
 * Verifies the API key and the backend. Never throws: every problem is a failed check with a message.
 *
 * @example
 * const result = await verifyService({ apiKey: process.env.SPENDGUARD_API_KEY, endpoint });
 * if (!result.ok) console.error(result.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.message}`));
 */
export async function verifyService(options?: VerifyOptions): Promise<VerifyResult> {
  const checks: VerifyCheck[] = [];
  const result: VerifyResult = { ok: false, checks };
  const check = (name: VerifyCheck['name'], ok: boolean, message: string): boolean => {
    checks.push({ name, ok, message });
    return ok;
  };
  try {
    const opts: VerifyOptions = typeof options === 'object' && options !== null ? options : {};
    const timeoutMs = typeof opts.timeoutMs === 'number' && opts.timeoutMs > 0 ? opts.timeoutMs : 5000;
    const fetchFn: FetchLike | undefined = typeof opts.fetch === 'function' ? opts.fetch : originalFetch();
    const apiKey =
      (typeof opts.apiKey === 'string' ? opts.apiKey.trim() : '') || envVar('SPENDGUARD_API_KEY');
    const parsed = parseApiKey(apiKey);
    const keyOk = check(
      'apiKeyFormat',
      parsed.ok,
      parsed.ok
        ? `${parsed.prefix}_****`
        : apiKey === undefined
          ? 'no API key: pass apiKey or set SPENDGUARD_API_KEY (dashboard: Settings, API Keys)'
          : `API key ${KEY_PROBLEMS[apiKey.startsWith('abn_') ? parsed.reason : 'wrong_prefix']}`,
    );
    const raw =
      (typeof opts.endpoint === 'string' ? opts.endpoint : undefined) ?? envVar('SPENDGUARD_ENDPOINT');
    const endpoint = raw === undefined ? null : parseBaseUrl(raw);
    check(
      'endpoint',
      endpoint !== null,
      endpoint ??
        (raw === undefined
          ? 'no endpoint: pass endpoint or set SPENDGUARD_ENDPOINT'
          : `not an http(s) URL: ${raw}`),
    );
    let reachable = false;
    if (endpoint === null || fetchFn === undefined) {
      check('backendReachable', false, fetchFn === undefined ? 'no fetch in this runtime' : 'skipped');
    } else {
      const status = await timedRequest(
        fetchFn,
        `${endpoint}/v1/health`,
        { method: 'GET' },
        timeoutMs,
        (r) => {
          drain(r);
          return r.status;
        },
      ).catch((err: unknown) => (err instanceof Error ? err.message : 'request failed'));
      reachable = check(
        'backendReachable',
        status === 200,
        typeof status === 'number'
          ? `GET /v1/health: HTTP ${status}`
          : `GET /v1/health failed: ${status} (network, DNS, TLS or wrong endpoint)`,
      );
    }
    if (!keyOk || !reachable || endpoint === null || fetchFn === undefined || !parsed.ok) {
      check('apiKeyAccepted', false, 'skipped');
    } else {
      const status = await fetchOrgStatus(fetchFn, `${endpoint}/v1/budget`, apiKey as string, timeoutMs);
      if (status.kind === 'ok') {
        check('apiKeyAccepted', true, 'accepted');
        result.orgStatus = status.status;
        const suspended = status.flagState === 'SUSPENDED';
        check(
          'organizationActive',
          !suspended,
          suspended
            ? 'SUSPENDED by a guardrail: calls are blocked until the flag expires or is cleared'
            : status.status.status,
        );
      } else {
        check(
          'apiKeyAccepted',
          false,
          status.kind === 'error'
            ? `GET /v1/budget failed: ${status.reason}`
            : status.status === 401
              ? 'HTTP 401: unknown or revoked key, or a key of another deployment'
              : status.status === 403
                ? // Known, but not for this: a proxy-only key, which the SDK cannot send its events with.
                  'HTTP 403: the key has no ingest scope (a proxy-only key?); the SDK sends its events with ingest: create a key with it'
                : `GET /v1/budget: HTTP ${status.status}`,
        );
      }
    }
    const log = createLogger(() => opts.debug === true);
    for (const c of checks) log.debug(`verify ${c.name}: ${c.ok ? 'ok' : 'FAILED'}: ${c.message}`);
  } catch (err) {
    check('backendReachable', false, `unexpected: ${err instanceof Error ? err.message : String(err)}`);
  }
  result.ok = checks.every((c) => c.ok);
  return result;
}
