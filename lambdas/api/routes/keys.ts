import { randomBytes } from 'node:crypto';
import { generateApiKey, hashApiKey, KEY_SCOPES, scopesOf } from '../../../core/keys';
import { formatZodIssues } from '../../../core/schemas';
import { createKeyRequestSchema, keyPublicIdSchema } from '../../../core/schemas/api';
import { recordChange } from '../../shared/audit';
import { coverKeyWithOrgFlags } from '../../shared/enforcement';
import { httpErrors, json, parseJsonBody } from '../../shared/http';
import { apiKeyView } from '../views';
import type { Route } from './types';

export const listKeys: Route = {
  auth: 'person',
  handle: async ({ principal, services }) => {
    const keys = await services.keys.listByOrg(principal.orgId);
    return json(200, { keys: keys.map(apiKeyView) });
  },
};

/**
 * Creates a key with the scopes asked for (every scope when the body names none). The response is the
 * only place the raw key ever appears (only its HMAC is stored).
 */
export const createKey: Route = {
  auth: 'person',
  role: 'member',
  handle: async ({ event, principal, services }) => {
    const parsed = createKeyRequestSchema.safeParse(parseJsonBody(event));
    if (!parsed.success) throw httpErrors.badRequest('invalid key request', formatZodIssues(parsed.error));
    const generated = generateApiKey((n) => randomBytes(n));
    const record = {
      publicId: generated.publicId,
      orgId: principal.orgId,
      prefix: generated.prefix,
      hash: hashApiKey(generated.apiKey, await services.pepper.get()),
      name: parsed.data.name,
      createdAt: new Date(services.now()).toISOString(),
      revokedAt: null,
      // Absent: every scope, as keys created before scopes existed (15.3).
      scopes: scopesOf(parsed.data.scopes ?? KEY_SCOPES),
    };
    await services.orgs.ensure(principal.orgId, record.createdAt);
    await services.keys.create(record);
    await coverKeyWithOrgFlags(services, record); // a key created during a suspension is suspended too
    // The view only: the raw key is never recorded (only its HMAC is stored, and not in the log).
    await recordChange(services, principal, {
      action: 'key.created',
      target: record.publicId,
      after: apiKeyView(record),
    });
    return json(201, { key: apiKeyView(record), apiKey: generated.apiKey });
  },
};

export const revokeKey: Route = {
  auth: 'person',
  role: 'member',
  handle: async ({ event, principal, services }) => {
    const publicId = event.pathParameters?.publicId ?? '';
    if (!keyPublicIdSchema.safeParse(publicId).success) {
      throw httpErrors.badRequest('invalid key id', [
        { path: 'publicId', message: 'expected the key public id' },
      ]);
    }
    const before = await services.keys.get(publicId);
    const revokedAt = new Date(services.now()).toISOString();
    const outcome = await services.keys.revoke(principal.orgId, publicId, revokedAt);
    if (outcome === 'not_found' || !before) throw httpErrors.notFound('no such key in this organization');
    services.apiKeys.invalidate(publicId);
    // A second DELETE changes nothing (the first revokedAt stays), so it is not audited again.
    if (outcome === 'revoked') {
      await recordChange(services, principal, {
        action: 'key.revoked',
        target: publicId,
        before: apiKeyView(before),
        after: apiKeyView({ ...before, revokedAt }),
      });
    }
    return json(200, { revoked: true });
  },
};
