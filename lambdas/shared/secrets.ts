import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** A secret string read once and cached for the life of the process (Lambda execution environment). */
export interface SecretSource {
  get(): Promise<string>;
}

/** A fixed value: the local stack's generated secrets, and tests. */
export class StaticSecret implements SecretSource {
  constructor(private readonly value: string) {}
  get(): Promise<string> {
    return Promise.resolve(this.value);
  }
}

/**
 * Secrets Manager, read once per execution environment. A failed read is not cached, so the next
 * invocation tries again instead of failing for the life of the container.
 */
export class SecretsManagerSecret implements SecretSource {
  private pending: Promise<string> | undefined;

  constructor(
    private readonly client: SecretsManagerClient,
    private readonly secretId: string,
  ) {}

  get(): Promise<string> {
    this.pending ??= this.read().catch((err: unknown) => {
      this.pending = undefined;
      throw err;
    });
    return this.pending;
  }

  private async read(): Promise<string> {
    const out = await this.client.send(new GetSecretValueCommand({ SecretId: this.secretId }));
    if (!out.SecretString) throw new Error(`secret ${this.secretId} has no string value`);
    return out.SecretString;
  }
}
