import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeys } from '../item-keys';
import { isConditionFailed, revisionCondition, type DynamoTable } from './dynamo';

/**
 * An organization's budget caps and guardrail policy, stored as the JSON the API validated
 * (core/schemas budget, core/guardrails policy). Callers validate on read too: a stored item written
 * by an older version must not crash a consumer.
 */
export interface OrgConfig {
  budget: unknown;
  policy: unknown;
  updatedAt: string;
  /**
   * The write's revision: 1 for the first, one more for each after (0, or absent, for an item written
   * before revisions existed). A write names the revision it read, so two admins merging different
   * policy fields at once cannot silently drop one another's change.
   */
  rev?: number;
}

/** The settings changed between the read and the write; read again and redo the change. */
export class OrgConfigConflictError extends Error {
  constructor(orgId: string) {
    super(`the settings of ${orgId} changed while they were being written`);
    this.name = 'OrgConfigConflictError';
  }
}

export interface OrgConfigStore {
  get(orgId: string): Promise<OrgConfig | undefined>;
  /**
   * Writes `config` as revision `readRev + 1`, only if the stored revision is still `readRev` (0: no
   * item, or an item without a revision); otherwise throws {@link OrgConfigConflictError}.
   */
  put(orgId: string, config: Omit<OrgConfig, 'rev'>, readRev: number): Promise<void>;
}

export class DynamoOrgConfigStore implements OrgConfigStore {
  constructor(private readonly table: DynamoTable) {}

  async get(orgId: string): Promise<OrgConfig | undefined> {
    const out = await this.table.doc.send(
      new GetCommand({ TableName: this.table.tableName, Key: itemKeys.config(orgId), ConsistentRead: true }),
    );
    if (!out.Item) return undefined;
    return {
      budget: out.Item.budget,
      policy: out.Item.policy,
      updatedAt: String(out.Item.updatedAt),
      rev: typeof out.Item.rev === 'number' ? out.Item.rev : 0,
    };
  }

  async put(orgId: string, config: Omit<OrgConfig, 'rev'>, readRev: number): Promise<void> {
    try {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: { ...itemKeys.config(orgId), ...config, rev: readRev + 1 },
          ...revisionCondition(readRev),
        }),
      );
    } catch (err) {
      if (isConditionFailed(err)) throw new OrgConfigConflictError(orgId);
      throw err;
    }
  }
}
