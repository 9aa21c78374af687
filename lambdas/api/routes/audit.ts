import { formatZodIssues } from '../../../core/schemas';
import { auditQuerySchema, putAuditSettingsRequestSchema, type AuditPage } from '../../../core/schemas/api';
import { recordChange } from '../../shared/audit';
import { httpErrors, json, parseJsonBody } from '../../shared/http';
import { InvalidAuditCursorError } from '../../shared/stores/audit-log';
import type { Route } from './types';

/**
 * GET /v1/audit?limit&cursor&action: the organization's audit log, newest first (admins and members:
 * it names people and what they tried).
 */
export const getAudit: Route = {
  auth: 'person',
  role: 'member',
  handle: async ({ event, principal, services }) => {
    const parsed = auditQuerySchema.safeParse(event.queryStringParameters ?? {});
    if (!parsed.success) throw httpErrors.badRequest('invalid audit query', formatZodIssues(parsed.error));
    const q = parsed.data;
    try {
      const [page, retentionDays] = await Promise.all([
        services.audit.list(
          principal.orgId,
          { limit: q.limit, cursor: q.cursor ?? null, ...(q.action ? { action: q.action } : {}) },
          services.now(),
        ),
        services.audit.retentionDays(principal.orgId),
      ]);
      const body: AuditPage = { entries: page.entries, nextCursor: page.nextCursor, retentionDays };
      return json(200, body);
    } catch (err) {
      if (err instanceof InvalidAuditCursorError) {
        throw httpErrors.badRequest('invalid cursor', [{ path: 'cursor', message: err.message }]);
      }
      throw err;
    }
  },
};

/** PUT /v1/audit/settings: how long new entries are kept (admins; entries already written keep theirs). */
export const putAuditSettings: Route = {
  auth: 'person',
  role: 'admin',
  handle: async ({ event, principal, services }) => {
    const parsed = putAuditSettingsRequestSchema.safeParse(parseJsonBody(event));
    if (!parsed.success) throw httpErrors.badRequest('invalid audit settings', formatZodIssues(parsed.error));
    const before = await services.audit.retentionDays(principal.orgId);
    const after = parsed.data.retentionDays;
    await services.audit.setRetentionDays(principal.orgId, after, new Date(services.now()).toISOString());
    await recordChange(services, principal, {
      action: 'audit_settings.updated',
      before: { retentionDays: before },
      after: { retentionDays: after },
    });
    return json(200, { retentionDays: after });
  },
};
