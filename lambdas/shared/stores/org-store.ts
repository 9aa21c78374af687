import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeys } from '../item-keys';
import { type DynamoTable, isConditionFailed, queryAll } from './dynamo';

/** GSI1 partition that lists every organization (read by the scheduled forecast, never by a tenant). */
const ALL_ORGS = 'ORGS';

/** The organizations known to this deployment: registered when their first API key is created. */
export interface OrgStore {
  ensure(orgId: string, at: string): Promise<void>;
  list(): Promise<string[]>;
}

export class DynamoOrgStore implements OrgStore {
  constructor(private readonly table: DynamoTable) {}

  async ensure(orgId: string, at: string): Promise<void> {
    try {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: { ...itemKeys.org(orgId), orgId, createdAt: at, gsi1pk: ALL_ORGS, gsi1sk: orgId },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
  }

  async list(): Promise<string[]> {
    const items = await queryAll(this.table, {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :all',
      ExpressionAttributeValues: { ':all': ALL_ORGS },
    });
    return items.map((item) => String(item.orgId));
  }
}
