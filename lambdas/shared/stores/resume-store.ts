import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Resumes } from '../../../core/guardrails/resume';
import { itemKeys } from '../item-keys';
import type { DynamoTable } from './dynamo';

/** What a Resume cleared: every flag of the organization, or one key's. */
export type ResumedTarget =
  { readonly scope: 'organization' } | { readonly scope: 'key'; readonly keyId: string };

/**
 * When people last cleared flags (Resume), per organization and per key: the enforce function writes
 * it, the guardrail consumer reads it when a burst or premium verdict is about to be acted on.
 */
export interface ResumeStore {
  record(orgId: string, target: ResumedTarget, atMs: number): Promise<void>;
  get(orgId: string): Promise<Resumes>;
}

/** A Resume older than this no longer matters: the longest window it restarts (layer 5's) is an hour. */
const RESUME_ITEM_TTL_SECONDS = 86_400;
const NONE: Resumes = Object.freeze({ organizationAt: null, keyAt: new Map<string, number>() });

export class DynamoResumeStore implements ResumeStore {
  constructor(private readonly table: DynamoTable) {}

  async record(orgId: string, target: ResumedTarget, atMs: number): Promise<void> {
    await this.table.doc.send(
      new UpdateCommand({
        TableName: this.table.tableName,
        Key: itemKeys.resumes(orgId),
        UpdateExpression: 'SET #at = :at, expiresAt = :exp',
        ExpressionAttributeNames: { '#at': target.scope === 'organization' ? 'org' : `k#${target.keyId}` },
        ExpressionAttributeValues: { ':at': atMs, ':exp': Math.floor(atMs / 1000) + RESUME_ITEM_TTL_SECONDS },
      }),
    );
  }

  async get(orgId: string): Promise<Resumes> {
    const out = await this.table.doc.send(
      new GetCommand({ TableName: this.table.tableName, Key: itemKeys.resumes(orgId), ConsistentRead: true }),
    );
    if (!out.Item) return NONE;
    const keyAt = new Map<string, number>();
    for (const [name, value] of Object.entries(out.Item)) {
      if (name.startsWith('k#') && typeof value === 'number') keyAt.set(name.slice(2), value);
    }
    return { organizationAt: typeof out.Item.org === 'number' ? out.Item.org : null, keyAt };
  }
}
