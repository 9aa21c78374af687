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

/** The values of a rotated secret that are accepted now: the current one first, then the previous one. */
export interface VersionedSecretSource {
  /** The accepted values; `refresh` re-reads them instead of answering from the cache. */
  accepted(refresh: boolean): Promise<readonly string[]>;
}

/**
 * Secrets Manager's `AWSCURRENT` and `AWSPREVIOUS` versions of one secret, cached for the life of the
 * execution environment until a caller asks for a refresh. After `put-secret-value` the new value is
 * AWSCURRENT and the replaced one AWSPREVIOUS, so both sides of a rotation are accepted while CloudFront
 * still sends the old header (the rotation runbook in docs/operations.md). A secret that was never
 * rotated has no AWSPREVIOUS; a failed read is not cached.
 */
export class SecretsManagerVersions implements VersionedSecretSource {
  private pending: Promise<readonly string[]> | undefined;

  constructor(
    private readonly client: SecretsManagerClient,
    private readonly secretId: string,
  ) {}

  accepted(refresh: boolean): Promise<readonly string[]> {
    if (refresh) this.pending = undefined;
    this.pending ??= this.read().catch((err: unknown) => {
      this.pending = undefined;
      throw err;
    });
    return this.pending;
  }

  private async read(): Promise<readonly string[]> {
    const [current, previous] = await Promise.all([
      this.readStage('AWSCURRENT'),
      this.readStage('AWSPREVIOUS').catch((err: unknown) => {
        if ((err as { name?: string }).name === 'ResourceNotFoundException') return undefined;
        throw err;
      }),
    ]);
    if (current === undefined) throw new Error(`secret ${this.secretId} has no string value`);
    return previous === undefined || previous === current ? [current] : [current, previous];
  }

  private async readStage(stage: 'AWSCURRENT' | 'AWSPREVIOUS'): Promise<string | undefined> {
    const out = await this.client.send(
      new GetSecretValueCommand({ SecretId: this.secretId, VersionStage: stage }),
    );
    return out.SecretString || undefined;
  }
}
