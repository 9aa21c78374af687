import middy from '@middy/core';
import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { API_KEY_PREFIX, isApiKeyPrefix, parseApiKey } from '../../core/keys';
import { enforceRequestSchema, formatZodIssues } from '../../core/schemas';
import { recordChange, requireRole } from '../shared/audit';
import { clearFlags, enforcementDeps, flagTarget, pushFlag } from '../shared/enforcement';
import { flagPropagationMs } from '../shared/flag-propagation';
import { bodyText, httpErrors, json, parseJsonBody } from '../shared/http';
import { httpErrorHandler } from '../shared/middleware/http-error-handler';
import { requirePerson } from '../shared/principal';
import type { IdTokenVerifier, Services } from '../shared/services';

/**
 * Largest request body, bytes. The largest valid body (a full key, a 256-character session id, every
 * push member) is under 1 KB; 16 KB leaves room for whitespace and stops a large body before it is parsed.
 */
export const MAX_ENFORCE_BODY_BYTES = 16 * 1024;

export interface EnforceDeps {
  services: Services;
  idTokens: IdTokenVerifier;
  logger: Logger;
  metrics: Metrics;
  /**
   * How long a kill takes to be in force at every guard (flag-propagation.ts); a push answers after it.
   * @default flagPropagationMs(false): the guards' cache lifetime, one table without replicas
   */
  flagPropagationMs?: number;
  /** Waits `ms` (tests replace it). */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * POST /api/guardrails/enforce (spec 4.2): pushes or clears a kill flag at a scope (organization by
 * default; a key; a key's session). The caller is a person with a verified ID token who must own the
 * organization of `apiKey` and `keyId`. Because the dashboard never holds raw keys, `apiKey` may also be
 * a key prefix (`abn_<publicId>`) or be replaced by `keyId`: ownership is proven by the token, not by the
 * key's secret. Order: token (401) → body size (413) → body (400, an unknown member included) → ownership (403) → role (403 `role_required`): a
 * `member` may push and clear at key or session scope, organization scope (also a clear of everything)
 * is `admin`'s (core/roles). Every push and clear is audited (`flag.set`, `flag.cleared`).
 *
 * A push answers once the flag is in force at every guard (it waits out their "no flag" cache and, in
 * AWS, replication): a call made after the answer meets the kill. A clear answers at once: guards read a
 * flag again on every call it meets.
 */
export function createEnforceHandler(deps: EnforceDeps) {
  const { services } = deps;
  const propagationMs = deps.flagPropagationMs ?? flagPropagationMs(false);
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  const handle = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const person = await requirePerson(event, deps.idTokens, services);
    const size = Buffer.byteLength(bodyText(event), 'utf8');
    if (size > MAX_ENFORCE_BODY_BYTES)
      throw httpErrors.tooLarge(`request body is ${size} bytes; at most ${MAX_ENFORCE_BODY_BYTES}`);
    const parsed = enforceRequestSchema.safeParse(parseJsonBody(event));
    if (!parsed.success)
      throw httpErrors.badRequest('invalid enforcement request', formatZodIssues(parsed.error));
    const req = parsed.data;

    // Every key the request names must be the caller's; the target is `keyId` when given, else `apiKey`'s.
    // The same 403 for a key of another organization and for no such key: no probing other tenants' ids.
    const named = [req.apiKey === undefined ? undefined : (publicIdOf(req.apiKey) ?? ''), req.keyId];
    const owned = await Promise.all(
      named.filter((id) => id !== undefined).map((id) => (id ? services.keys.get(id) : undefined)),
    );
    const anyNamed = owned.length > 0;
    const key = owned.at(-1);
    if (anyNamed && (!key || owned.some((k) => k?.orgId !== person.orgId)))
      throw httpErrors.forbidden('the caller does not own this API key');
    // Without a key named (scope organization only, enforced by the schema) the caller's organization.
    const orgId = key?.orgId ?? person.orgId;
    const target =
      req.scope === undefined
        ? undefined
        : flagTarget(req.scope, key?.publicId ?? null, req.sessionId ?? null);

    const narrow = target !== undefined && target.scope !== 'organization';
    await requireRole(
      services,
      person,
      narrow ? 'member' : 'admin',
      `${req.action === 'ACTIVE' ? 'resuming' : 'a kill'} at ${narrow ? target.scope : 'organization'} scope`,
    );
    const where = target ?? { scope: req.action === 'ACTIVE' ? 'all' : 'organization' };

    const now = services.now();
    const enforcement = await enforcementDeps(services);
    if (req.action === 'ACTIVE') {
      const cleared = await clearFlags(enforcement, orgId, now, target);
      // The windows that tripped start again here (core/guardrails/resume.ts): the pipeline's loop, burst
      // and premium windows through the recorded time, the relay's shared loop runs at once. A session's
      // Resume restarts its key's (the windows count per key; the person let that key's agent go on).
      const resumed =
        target === undefined || target.scope === 'organization'
          ? ({ scope: 'organization' } as const)
          : ({ scope: 'key', keyId: target.keyId as string } as const);
      await services.resumes.record(orgId, resumed, now);
      await services.loopRuns.resetAll(orgId, resumed.scope === 'key' ? resumed.keyId : null);
      await recordChange(services, person, {
        action: 'flag.cleared',
        target: where.scope,
        before: { ...where, activeFlags: cleared },
        after: { ...where, state: 'ACTIVE' },
      });
      deps.metrics.addMetric('FlagsCleared', MetricUnit.Count, 1);
      deps.logger.info('flags cleared', {
        orgId,
        scope: req.scope ?? 'all',
        cleared,
        by: person.sub,
      });
      // Spec 4.2's clear answers {success, action} exactly; a scoped clear (ours) also says what it removed.
      return json(200, {
        success: true,
        action: 'RESUMED',
        ...(target === undefined ? {} : { ...target, cleared }),
      });
    }
    const result = await pushFlag(
      enforcement,
      {
        orgId,
        ...(target ? { target } : {}),
        action: req.action,
        triggerType: req.triggerType,
        observedValue: req.observedValue,
        thresholdValue: req.thresholdValue,
        mode: req.mode,
      },
      now,
    );
    const written = services.now();
    await recordChange(services, person, {
      action: 'flag.set',
      target: result.scope,
      after: {
        scope: result.scope,
        keyId: result.keyId,
        sessionId: result.sessionId,
        state: result.action,
        triggerType: req.triggerType,
        mode: req.mode,
        expiresAt: result.expiresAt,
      },
    });
    deps.metrics.addMetric('FlagsPushed', MetricUnit.Count, 1);
    deps.logger.info('flag pushed', {
      orgId,
      scope: result.scope,
      action: req.action,
      triggerType: req.triggerType,
      by: person.sub,
    });
    // Measured from the end of the write (a guard read that began before it may hold "no flag" until
    // TTL after it); the audit entry above already took part of the wait.
    const waited = services.now() - written;
    if (propagationMs > waited) await sleep(propagationMs - waited);
    return json(200, {
      success: true,
      action: result.action,
      scope: result.scope,
      keyId: result.keyId,
      sessionId: result.sessionId,
      expiresAt: result.expiresAt,
      ttlSeconds: result.ttlSeconds,
      triggerType: req.triggerType,
      mode: req.mode,
      keysFlagged: result.keysFlagged,
    });
  };

  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(handle).use(
    httpErrorHandler(deps.logger),
  );
}

/** Public id from a full key or from a key prefix `abn_<publicId>`. */
function publicIdOf(apiKey: string): string | undefined {
  const full = parseApiKey(apiKey);
  if (full.ok) return full.publicId;
  return isApiKeyPrefix(apiKey) ? apiKey.slice(API_KEY_PREFIX.length) : undefined;
}
