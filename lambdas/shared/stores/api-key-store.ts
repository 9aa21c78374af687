import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type KeyScope, KEY_SCOPES, scopesOf } from '../../../core/keys/scopes';
import { itemKeys } from '../item-keys';
import { type DynamoTable, isConditionFailed, queryAll } from './dynamo';

/** What is stored of an API key: never the key itself, only its HMAC (spec 5.2). */
export interface ApiKeyRecord {
  publicId: string;
  orgId: string;
  /** `abn_<publicId>`, what the dashboard lists. */
  prefix: string;
  /** HMAC-SHA-256 of the whole key with the server pepper. */
  hash: string;
  name: string;
  createdAt: string;
  revokedAt: string | null;
  /**
   * What the key may do (core/keys/scopes). Absent on keys stored before scopes existed: such a key
   * carries every scope, and reading it back yields all of them.
   */
  scopes?: readonly KeyScope[];
}

export interface ApiKeyStore {
  create(record: ApiKeyRecord): Promise<void>;
  get(publicId: string): Promise<ApiKeyRecord | undefined>;
  listByOrg(orgId: string): Promise<ApiKeyRecord[]>;
  /**
   * Revokes a key of `orgId` at `at`. Idempotent: a key already revoked keeps its first `revokedAt`
   * (`already_revoked`); `not_found` when the organization has no such key.
   */
  revoke(orgId: string, publicId: string, at: string): Promise<RevokeOutcome>;
}

/** What {@link ApiKeyStore.revoke} did. */
export type RevokeOutcome = 'revoked' | 'already_revoked' | 'not_found';

export class DynamoApiKeyStore implements ApiKeyStore {
  constructor(private readonly table: DynamoTable) {}

  async create(record: ApiKeyRecord): Promise<void> {
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: {
          ...itemKeys.apiKey(record.publicId),
          gsi1pk: itemKeys.orgKeysIndex(record.orgId),
          gsi1sk: `${record.createdAt}#${record.publicId}`,
          ...record,
          scopes: [...(record.scopes ?? KEY_SCOPES)],
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(publicId: string): Promise<ApiKeyRecord | undefined> {
    const out = await this.table.doc.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: itemKeys.apiKey(publicId),
        ConsistentRead: true,
      }),
    );
    return out.Item ? toRecord(out.Item) : undefined;
  }

  async listByOrg(orgId: string): Promise<ApiKeyRecord[]> {
    const items = await queryAll(this.table, {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': itemKeys.orgKeysIndex(orgId) },
    });
    return items.map(toRecord);
  }

  async revoke(orgId: string, publicId: string, at: string): Promise<RevokeOutcome> {
    try {
      await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: itemKeys.apiKey(publicId),
          UpdateExpression: 'SET revokedAt = :at',
          // The organization check is in the condition: a caller cannot revoke another tenant's key.
          // A valid key stores revokedAt as null (create writes the record whole), or not at all; a
          // revoked one keeps its first time, so that the audit's "revoked at" stays true.
          ConditionExpression:
            'attribute_exists(pk) AND orgId = :org AND (attribute_not_exists(revokedAt) OR attribute_type(revokedAt, :null))',
          ExpressionAttributeValues: { ':at': at, ':org': orgId, ':null': 'NULL' },
        }),
      );
      return 'revoked';
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      const current = await this.get(publicId);
      return current?.orgId === orgId && current.revokedAt !== null ? 'already_revoked' : 'not_found';
    }
  }
}

function toRecord(item: Record<string, unknown>): ApiKeyRecord {
  return {
    publicId: String(item.publicId),
    orgId: String(item.orgId),
    prefix: String(item.prefix),
    hash: String(item.hash),
    name: String(item.name ?? ''),
    createdAt: String(item.createdAt),
    revokedAt: typeof item.revokedAt === 'string' ? item.revokedAt : null,
    scopes: scopesOf(item.scopes),
  };
}
