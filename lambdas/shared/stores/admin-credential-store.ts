import {
  CreateSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
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
      if (errorName(err) !== 'ResourceExistsException') throw err;
      await this.client.send(new PutSecretValueCommand({ SecretId: name, SecretString: adminKey }));
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
