import { randomBytes } from 'node:crypto';
import { generateApiKey, hashApiKey, KEY_SCOPES, scopesOf } from '../../../core/keys';
import { formatZodIssues } from '../../../core/schemas';
import { createKeyRequestSchema, keyPublicIdSchema } from '../../../core/schemas/api';
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
    return json(201, { key: apiKeyView(record), apiKey: generated.apiKey });
  },
};

export const revokeKey: Route = {
  auth: 'person',
  handle: async ({ event, principal, services }) => {
    const publicId = event.pathParameters?.publicId ?? '';
    if (!keyPublicIdSchema.safeParse(publicId).success) {
      throw httpErrors.badRequest('invalid key id', [
        { path: 'publicId', message: 'expected the key public id' },
      ]);
    }
    const revoked = await services.keys.revoke(
      principal.orgId,
      publicId,
      new Date(services.now()).toISOString(),
    );
    if (!revoked) throw httpErrors.notFound('no such key in this organization');
    services.apiKeys.invalidate(publicId);
    return json(200, { revoked: true });
  },
};
