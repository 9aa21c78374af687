/**
 * `GET /v1/keys`, `POST /v1/keys`, `DELETE /v1/keys/{publicId}`: an organization's API keys. Only the
 * key's HMAC is stored; the raw key appears once, in the response that creates it.
 * @module
 */
import { z } from 'zod';
import { API_KEY_PATTERN, API_KEY_PREFIX_PATTERN } from '../../keys/api-key';
import { KEY_SCOPES } from '../../keys/scopes';
import { PLAIN_TEXT, WELL_FORMED } from '../common';
import { timestamp } from './common';

/** The public id of a key: what names it in storage, the dashboard and logs (never secret). */
export const keyPublicIdSchema = z
  .string()
  .regex(/^[a-z0-9]{1,64}$/, { error: 'expected the key public id' })
  .meta({ description: 'The public id of the key.', example: 'k3v9x0q2m7za' });

/** Path parameters of DELETE /v1/keys/{publicId}. */
export const keyPathSchema = z.strictObject({ publicId: keyPublicIdSchema });

/** One permission of a key (core/keys/scopes). */
export const keyScopeSchema = z.enum(KEY_SCOPES).meta({
  description:
    'proxy: calls through the Spendguard proxy; ingest: telemetry in (POST /v1/events, POST /api/ingest) and budget leases; read: the v1 API reads with Service-API-Key.',
  example: 'ingest',
});

/** The scopes of a key: a non-empty set, each scope once. */
export const keyScopesSchema = z
  .array(keyScopeSchema)
  .min(1, { error: 'a key needs at least one scope' })
  .max(KEY_SCOPES.length)
  .refine((list) => new Set(list).size === list.length, { error: 'each scope at most once' })
  .meta({ description: 'What the key may do.', example: ['proxy', 'ingest'] });

/** Body of POST /v1/keys. */
export const createKeyRequestSchema = z
  .strictObject({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      // A name is shown and logged: a control character could forge a log line or a terminal's output.
      .regex(PLAIN_TEXT, { error: 'must not contain control characters or bidirectional controls' })
      .regex(WELL_FORMED, { error: 'must not contain a lone surrogate (invalid UTF-16)' })
      .meta({
        description:
          'A name for people (1 to 100 characters, trimmed, no control characters nor bidirectional controls).',
        example: 'ci',
      }),
    scopes: keyScopesSchema.optional().meta({
      description: 'What the key may do; absent: every scope (proxy, ingest and read).',
      example: ['proxy', 'ingest'],
    }),
  })
  .meta({ description: 'Body of POST /v1/keys.' });
export type CreateKeyRequest = z.infer<typeof createKeyRequestSchema>;

/** A key as listed: never its hash, never its secret. */
export const apiKeyViewSchema = z
  .strictObject({
    publicId: keyPublicIdSchema,
    prefix: z.string().regex(API_KEY_PREFIX_PATTERN).meta({
      description: 'abn_<publicId>: what the dashboard shows and the enforcement endpoint accepts.',
      example: 'abn_k3v9x0q2m7za',
    }),
    name: z.string().meta({ description: 'The name given at creation.', example: 'ci' }),
    createdAt: timestamp('When the key was created.'),
    revokedAt: timestamp('When the key was revoked; null while it is valid.').nullable(),
    scopes: keyScopesSchema.meta({
      description: 'What the key may do (every scope for keys created without a list).',
      example: ['proxy', 'ingest', 'read'],
    }),
  })
  .meta({ description: 'An API key, without its secret.' });
export type ApiKeyView = z.infer<typeof apiKeyViewSchema>;

export const keyListResponseSchema = z
  .strictObject({
    keys: z.array(apiKeyViewSchema).meta({ description: "The organization's keys, revoked ones included." }),
  })
  .meta({ description: 'Response of GET /v1/keys.' });
export type KeyListResponse = z.infer<typeof keyListResponseSchema>;

export const createKeyResponseSchema = z
  .strictObject({
    key: apiKeyViewSchema,
    apiKey: z.string().regex(API_KEY_PATTERN).meta({
      description: 'The whole key, abn_<publicId>_<secret>: shown this once and never stored.',
      example: 'abn_k3v9x0q2m7za_6JpQ2mX9vT4rL8sW1yB3nC5dF7gH0jK2lM4pR6tV8xZ',
    }),
  })
  .meta({ description: 'Response of POST /v1/keys (201).' });
export type CreateKeyResponse = z.infer<typeof createKeyResponseSchema>;

export const revokeKeyResponseSchema = z
  .strictObject({
    revoked: z.literal(true).meta({ description: 'The key no longer authenticates.', example: true }),
  })
  .meta({ description: 'Response of DELETE /v1/keys/{publicId}.' });
export type RevokeKeyResponse = z.infer<typeof revokeKeyResponseSchema>;
