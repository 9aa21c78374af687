import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  RestoreSecretCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { RECONCILED_PROVIDERS, type ReconciledProvider } from '../../../core/reconciliation/providers';

/**
 * The admin credentials an organization stores for reconciliation (OpenAI admin key, Anthropic Admin
 * API key, OpenRouter management key). Write and read only: nothing ever returns a stored key to a
 * caller, and nothing logs one.
 */
export interface AdminCredentialStore {
  put(orgId: string, provider: ReconciledProvider, adminKey: string): Promise<void>;
  get(orgId: string, provider: ReconciledProvider): Promise<string | undefined>;
  /** Removes the stored credential, if any (afterwards `configured` leaves the provider out). */
  delete(orgId: string, provider: ReconciledProvider): Promise<void>;
  /** Providers with a stored credential. */
  configured(orgId: string): Promise<ReconciledProvider[]>;
}

/** In-process store (tests; a deployment without a secret prefix keeps nothing across invocations). */
export class MemoryAdminCredentialStore implements AdminCredentialStore {
  private readonly keys = new Map<string, string>();

  put(orgId: string, provider: ReconciledProvider, adminKey: string): Promise<void> {
    this.keys.set(`${orgId}/${provider}`, adminKey);
    return Promise.resolve();
  }

  get(orgId: string, provider: ReconciledProvider): Promise<string | undefined> {
    return Promise.resolve(this.keys.get(`${orgId}/${provider}`));
  }

  delete(orgId: string, provider: ReconciledProvider): Promise<void> {
    this.keys.delete(`${orgId}/${provider}`);
    return Promise.resolve();
  }

  configured(orgId: string): Promise<ReconciledProvider[]> {
    return Promise.resolve(RECONCILED_PROVIDERS.filter((p) => this.keys.has(`${orgId}/${p}`)));
  }
}

/** Characters Secrets Manager allows in a name; organization ids outside them are refused, not mangled. */
const SECRET_NAME_PART = /^[A-Za-z0-9_+=.@-]{1,128}$/;

const errorName = (err: unknown): string =>
  typeof err === 'object' && err !== null && 'name' in err ? String((err as { name: unknown }).name) : '';

/**
 * Secrets Manager: one secret per organization and provider, named `<prefix>/<orgId>/<provider>`
 * (the prefix is `<stack name>/reconciliation`, so the IAM policy can be scoped to it).
 */
export class SecretsManagerAdminCredentialStore implements AdminCredentialStore {
  constructor(
    private readonly client: SecretsManagerClient,
    private readonly prefix: string,
  ) {}

  private nameOf(orgId: string, provider: ReconciledProvider): string {
    if (!SECRET_NAME_PART.test(orgId)) throw new Error('organization id cannot name a secret');
    return `${this.prefix}/${orgId}/${provider}`;
  }

  async put(orgId: string, provider: ReconciledProvider, adminKey: string): Promise<void> {
    const name = this.nameOf(orgId, provider);
    try {
      await this.client.send(
        new CreateSecretCommand({
          Name: name,
          SecretString: adminKey,
          Description: `Spendguard reconciliation: ${provider} admin credential of ${orgId}`,
        }),
      );
    } catch (err) {
      const name_ = errorName(err);
      // A secret deleted through the API is scheduled for deletion (recoverable): restore, then replace.
      if (name_ === 'InvalidRequestException') {
        await this.client.send(new RestoreSecretCommand({ SecretId: name }));
      } else if (name_ !== 'ResourceExistsException') throw err;
      await this.client.send(new PutSecretValueCommand({ SecretId: name, SecretString: adminKey }));
    }
  }

  /**
   * Schedules the secret's deletion with the shortest recovery window (7 days): DescribeSecret then
   * shows `DeletedDate` (so `configured` leaves it out), the reconciliation function can no longer read
   * it, and an operator can still restore a deletion made by mistake.
   */
  async delete(orgId: string, provider: ReconciledProvider): Promise<void> {
    try {
      await this.client.send(
        new DeleteSecretCommand({ SecretId: this.nameOf(orgId, provider), RecoveryWindowInDays: 7 }),
      );
    } catch (err) {
      const name = errorName(err);
      // None stored, or already scheduled for deletion: nothing to do.
      if (name === 'ResourceNotFoundException' || name === 'InvalidRequestException') return;
      throw err;
    }
  }

  async get(orgId: string, provider: ReconciledProvider): Promise<string | undefined> {
    try {
      const out = await this.client.send(
        new GetSecretValueCommand({ SecretId: this.nameOf(orgId, provider) }),
      );
      return out.SecretString;
    } catch (err) {
      if (errorName(err) === 'ResourceNotFoundException') return undefined;
      throw err;
    }
  }

  async configured(orgId: string): Promise<ReconciledProvider[]> {
    const found = await Promise.all(
      RECONCILED_PROVIDERS.map(async (p) => {
        try {
          const out = await this.client.send(new DescribeSecretCommand({ SecretId: this.nameOf(orgId, p) }));
          return out.DeletedDate === undefined ? p : undefined;
        } catch (err) {
          if (errorName(err) === 'ResourceNotFoundException') return undefined;
          throw err;
        }
      }),
    );
    return found.filter((p): p is ReconciledProvider => p !== undefined);
  }
}
