import { z } from 'zod';
import { formatZodIssues } from '../../../core/schemas';
import { httpErrors, json } from '../../shared/http';
import { InvalidCursorError } from '../../shared/stores/ledger-store';
import { ledgerEntryView } from '../views';
import type { Route } from './types';

const isoTime = z.iso.datetime({ offset: true });

/** Query of GET /v1/ledger. Unknown parameters are rejected so that a typo is not silently ignored. */
export const ledgerQuerySchema = z.strictObject({
  from: isoTime.optional(),
  to: isoTime.optional(),
  provider: z.string().max(64).optional(),
  model: z.string().max(256).optional(),
  projectId: z.string().max(256).optional(),
  featureId: z.string().max(256).optional(),
  source: z.enum(['sdk', 'proxy', 'ingest']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(2048).optional(),
});

/** Normalizes a query time to the ledger's sort-key form (UTC ISO with milliseconds). */
function utc(t: string | undefined): string | undefined {
  return t === undefined ? undefined : new Date(t).toISOString();
}

export const getLedger: Route = {
  auth: 'any',
  handle: async ({ event, principal, services }) => {
    const parsed = ledgerQuerySchema.safeParse(event.queryStringParameters ?? {});
    if (!parsed.success) throw httpErrors.badRequest('invalid ledger query', formatZodIssues(parsed.error));
    const q = parsed.data;
    try {
      const page = await services.ledger.query(
        principal.orgId,
        {
          from: utc(q.from),
          to: utc(q.to),
          provider: q.provider,
          model: q.model,
          projectId: q.projectId,
          featureId: q.featureId,
          source: q.source,
        },
        q.limit,
        q.cursor ?? null,
      );
      return json(200, { entries: page.entries.map(ledgerEntryView), nextCursor: page.nextCursor });
    } catch (err) {
      if (err instanceof InvalidCursorError) {
        throw httpErrors.badRequest('invalid cursor', [{ path: 'cursor', message: err.message }]);
      }
      throw err;
    }
  },
};
