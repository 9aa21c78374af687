import { formatZodIssues } from '../../../core/schemas';
import { ledgerQuerySchema } from '../../../core/schemas/api';
import { httpErrors, json } from '../../shared/http';
import { InvalidCursorError } from '../../shared/stores/ledger-store';
import { ledgerEntryView } from '../views';
import type { Route } from './types';

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
