import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeys } from '../item-keys';
import { type DynamoTable, isConditionFailed } from './dynamo';

/** An organization's Bedrock reconciliation setting (docs/reconciliation.md, "Amazon Bedrock"). */
export interface BedrockReconciliationSetting {
  /** The AWS account whose CloudWatch metrics are read (the deployment's own account). */
  readonly account: string;
  /** Regions whose metrics are read; empty = the deployment region. */
  readonly regions: readonly string[];
}

/** Another organization already owns the account's Bedrock figures. */
export class BedrockAccountClaimedError extends Error {
  constructor(readonly account: string) {
    super(`the Bedrock figures of AWS account ${account} are already reconciled by another organization`);
    this.name = 'BedrockAccountClaimedError';
  }
}

/**
 * The Bedrock settings and the account claims. An account's metrics are the whole account's spend, the
 * ledger one organization's: exactly one organization may claim an account, or each would see every
 * other's Bedrock spend as its own untracked spend.
 */
export interface BedrockReconciliationStore {
  get(orgId: string): Promise<BedrockReconciliationSetting | undefined>;
  /**
   * Claims `setting.account` for `orgId` (rejects with {@link BedrockAccountClaimedError} when another
   * organization holds it), stores the setting, and releases the account it held before if another.
   */
  put(orgId: string, setting: BedrockReconciliationSetting): Promise<void>;
  /** Removes the setting and releases the account (idempotent). */
  delete(orgId: string): Promise<void>;
  /** The organization that owns `account`'s figures, if any. */
  ownerOf(account: string): Promise<string | undefined>;
}

/**
 * DynamoDB: `ORG#<orgId>` / `RECONCILIATION#BEDROCK` and `BEDROCK_ACCOUNT#<account>` / `CLAIM`. Only
 * Get, Put and Update (the API function's grants): a released claim keeps its item without `orgId`, a
 * removed setting is replaced by one without `account`. The claim is taken before the setting is
 * written, so a crash in between leaves the account held by the organization that asked for it (it can
 * put or delete again), never by two.
 */
export class DynamoBedrockReconciliationStore implements BedrockReconciliationStore {
  constructor(private readonly table: DynamoTable) {}

  async get(orgId: string): Promise<BedrockReconciliationSetting | undefined> {
    const out = await this.table.doc.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: itemKeys.bedrockReconciliation(orgId),
        ConsistentRead: true,
      }),
    );
    const item = out.Item;
    if (!item || typeof item.account !== 'string') return undefined;
    const regions = Array.isArray(item.regions)
      ? item.regions.filter((r): r is string => typeof r === 'string')
      : [];
    return { account: item.account, regions };
  }

  async put(orgId: string, setting: BedrockReconciliationSetting): Promise<void> {
    const previous = await this.get(orgId);
    try {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: { ...itemKeys.bedrockAccountClaim(setting.account), orgId },
          ConditionExpression: 'attribute_not_exists(orgId) OR orgId = :org',
          ExpressionAttributeValues: { ':org': orgId },
        }),
      );
    } catch (err) {
      if (isConditionFailed(err)) throw new BedrockAccountClaimedError(setting.account);
      throw err;
    }
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: {
          ...itemKeys.bedrockReconciliation(orgId),
          account: setting.account,
          regions: [...setting.regions],
        },
      }),
    );
    if (previous !== undefined && previous.account !== setting.account) {
      await this.release(orgId, previous.account);
    }
  }

  async delete(orgId: string): Promise<void> {
    const previous = await this.get(orgId);
    await this.table.doc.send(
      new PutCommand({ TableName: this.table.tableName, Item: itemKeys.bedrockReconciliation(orgId) }),
    );
    if (previous !== undefined) await this.release(orgId, previous.account);
  }

  async ownerOf(account: string): Promise<string | undefined> {
    const out = await this.table.doc.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: itemKeys.bedrockAccountClaim(account),
        ConsistentRead: true,
      }),
    );
    return typeof out.Item?.orgId === 'string' ? out.Item.orgId : undefined;
  }

  /** Drops `orgId`'s hold on `account`; a hold another organization took meanwhile is left alone. */
  private async release(orgId: string, account: string): Promise<void> {
    try {
      await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: itemKeys.bedrockAccountClaim(account),
          UpdateExpression: 'REMOVE orgId',
          ConditionExpression: 'orgId = :org',
          ExpressionAttributeValues: { ':org': orgId },
        }),
      );
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
  }
}
