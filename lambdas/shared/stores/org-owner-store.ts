import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeys } from '../item-keys';
import { type DynamoTable, isConditionFailed } from './dynamo';

/** The owner of an organization: its first person to use the API. */
export interface OrgOwner {
  sub: string;
  email: string | null;
  claimedAt: string;
}

/**
 * Who owns each organization (docs/security.md, "Roles"). The first person of an organization to call
 * the API claims it with a put conditioned on no owner: written once, never replaced (the store has no
 * other write). An owner without a Cognito group acts as `admin`, so a new organization has an admin
 * before anyone manages groups.
 */
export interface OrgOwnerStore {
  /** The owner, claiming it for `person` when the organization has none. `claimed` is true for that write. */
  claim(
    orgId: string,
    person: Omit<OrgOwner, 'claimedAt'>,
    at: string,
  ): Promise<OrgOwner & { claimed: boolean }>;
}

export class DynamoOrgOwnerStore implements OrgOwnerStore {
  /** Owners never change, so a container remembers them (one read per organization and container). */
  private readonly known = new Map<string, OrgOwner>();

  constructor(private readonly table: DynamoTable) {}

  async claim(
    orgId: string,
    person: Omit<OrgOwner, 'claimedAt'>,
    at: string,
  ): Promise<OrgOwner & { claimed: boolean }> {
    const cached = this.known.get(orgId);
    if (cached) return { ...cached, claimed: false };
    const stored = await this.read(orgId);
    if (stored) return { ...this.remember(orgId, stored), claimed: false };
    const owner: OrgOwner = { sub: person.sub, email: person.email, claimedAt: at };
    try {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: { ...itemKeys.owner(orgId), ...owner },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return { ...this.remember(orgId, owner), claimed: true };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      // Another person's first request won the race.
      const winner = await this.read(orgId);
      if (!winner) throw err;
      return { ...this.remember(orgId, winner), claimed: false };
    }
  }

  private remember(orgId: string, owner: OrgOwner): OrgOwner {
    this.known.set(orgId, owner);
    return owner;
  }

  private async read(orgId: string): Promise<OrgOwner | undefined> {
    const out = await this.table.doc.send(
      new GetCommand({ TableName: this.table.tableName, Key: itemKeys.owner(orgId), ConsistentRead: true }),
    );
    if (!out.Item) return undefined;
    return {
      sub: String(out.Item.sub),
      email: typeof out.Item.email === 'string' ? out.Item.email : null,
      claimedAt: String(out.Item.claimedAt),
    };
  }
}
