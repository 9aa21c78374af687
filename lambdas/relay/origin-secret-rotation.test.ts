/**
 * The origin-secret rotation runbook of docs/operations.md, step by step, against a stand-in for Secrets
 * Manager that moves the AWSCURRENT / AWSPREVIOUS stages as `put-secret-value` does: warm relays keep
 * serving CloudFront through every step, and a wrong header never costs more than one re-read per interval.
 */
import {
  GetSecretValueCommand,
  type GetSecretValueCommandInput,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { MemoryApiKeyStore, MemoryEventSink } from '../../local/proxy/memory-stores';
import { ApiKeyAuthenticator } from '../shared/api-key-auth';
import { SecretsManagerVersions } from '../shared/secrets';
import { ORIGIN_SECRET_REFRESH_INTERVAL_MS, Relay } from './relay';

const SECRET_ID = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:Spendguard-OriginSecret-abcdef';

/** Secrets Manager's staging for one secret: put-secret-value makes the new value AWSCURRENT, the old AWSPREVIOUS. */
class StagedSecret {
  current: string;
  previous: string | undefined;
  reads = 0;
  constructor(initial: string) {
    this.current = initial;
  }
  put(value: string): void {
    this.previous = this.current;
    this.current = value;
  }
  get(input: GetSecretValueCommandInput): { SecretString: string } {
    this.reads++;
    if (input.SecretId !== SECRET_ID)
      throw Object.assign(new Error('no such secret'), { name: 'ResourceNotFoundException' });
    const value = input.VersionStage === 'AWSPREVIOUS' ? this.previous : this.current;
    if (value === undefined) {
      throw Object.assign(
        new Error("Secrets Manager can't find the specified secret value for staging label: AWSPREVIOUS"),
        {
          name: 'ResourceNotFoundException',
        },
      );
    }
    return { SecretString: value };
  }
}

const sm = mockClient(SecretsManagerClient);
let secret: StagedSecret;
let clock: number;

function newRelay(): Relay {
  return new Relay({
    keys: new ApiKeyAuthenticator({
      keys: new MemoryApiKeyStore(),
      pepper: async () => 'pepper-0123456789abcdef',
    }),
    sink: new MemoryEventSink(),
    originSecret: new SecretsManagerVersions(new SecretsManagerClient({ region: 'eu-west-1' }), SECRET_ID),
    now: () => clock,
  });
}

/**
 * The status a request with this origin header gets. The path names no provider, so a request past the
 * origin check is answered 404 without any upstream: 403 is the origin check refusing it.
 */
async function statusWith(relay: Relay, header: string | undefined): Promise<number> {
  let status = 0;
  const outcome = await relay.handle(
    {
      method: 'POST',
      url: '/no-such-provider/v1/x',
      headers: header === undefined ? {} : { 'x-spendguard-origin-secret': header },
      body: Buffer.alloc(0),
    },
    {
      keepsContentLength: true,
      start: (s) => {
        status = s;
        return { write: () => true, end: () => undefined } as never;
      },
    },
  );
  expect(outcome.status).toBe(status);
  return status;
}

const PASSED = 404;
const REFUSED = 403;

beforeEach(() => {
  secret = new StagedSecret('origin-v1');
  clock = 1_000_000;
  sm.reset();
  sm.on(GetSecretValueCommand).callsFake((input: GetSecretValueCommandInput) => secret.get(input));
});

describe('origin secret rotation (docs/operations.md, "Rotate the origin secret")', () => {
  it('keeps a warm relay serving CloudFront through put-secret-value and the redeploy', async () => {
    const warm = newRelay();
    expect(await statusWith(warm, 'origin-v1')).toBe(PASSED); // before: CloudFront sends v1

    // Step 1: put-secret-value. CloudFront still sends v1 until the redeploy: warm and cold relays pass it.
    secret.put('origin-v2');
    expect(await statusWith(warm, 'origin-v1')).toBe(PASSED);
    const cold = newRelay();
    expect(await statusWith(cold, 'origin-v1')).toBe(PASSED); // v1 is AWSPREVIOUS now
    expect(await statusWith(cold, 'origin-v2')).toBe(PASSED);

    // Step 2: cdk deploy -c originSecretVersionId=<v2>. The warm relay, which read only v1, re-reads once.
    const readsBefore = secret.reads;
    expect(await statusWith(warm, 'origin-v2')).toBe(PASSED);
    expect(secret.reads - readsBefore).toBe(2); // AWSCURRENT + AWSPREVIOUS, once
    expect(await statusWith(warm, 'origin-v2')).toBe(PASSED);
    expect(secret.reads - readsBefore).toBe(2); // cached from then on
    // Edge locations that have not picked up the new configuration yet still send v1.
    expect(await statusWith(warm, 'origin-v1')).toBe(PASSED);
  });

  it('refuses the value two rotations back, and a missing or wrong header', async () => {
    const relay = newRelay();
    secret.put('origin-v2');
    secret.put('origin-v3');
    expect(await statusWith(relay, 'origin-v3')).toBe(PASSED);
    expect(await statusWith(relay, 'origin-v2')).toBe(PASSED);
    expect(await statusWith(relay, 'origin-v1')).toBe(REFUSED);
    expect(await statusWith(relay, undefined)).toBe(REFUSED);
    expect(await statusWith(relay, 'origin-v3x')).toBe(REFUSED);
  });

  it('re-reads at most once per interval however many wrong headers arrive', async () => {
    const relay = newRelay();
    expect(await statusWith(relay, 'origin-v1')).toBe(PASSED);
    const afterFirstRead = secret.reads;
    for (let i = 0; i < 50; i++) {
      expect(await statusWith(relay, `forged-${i}`)).toBe(REFUSED);
      clock += 100; // 50 requests over 5 s: within one interval
    }
    expect(secret.reads - afterFirstRead).toBe(2); // one refresh (two stages)
    clock += ORIGIN_SECRET_REFRESH_INTERVAL_MS;
    expect(await statusWith(relay, 'forged-late')).toBe(REFUSED);
    expect(secret.reads - afterFirstRead).toBe(4);
    // Requests without the header at all never trigger a read.
    clock += ORIGIN_SECRET_REFRESH_INTERVAL_MS;
    expect(await statusWith(relay, undefined)).toBe(REFUSED);
    expect(secret.reads - afterFirstRead).toBe(4);
  });

  it('recovers within one interval when the new header arrived just after a refused forgery', async () => {
    const relay = newRelay();
    expect(await statusWith(relay, 'origin-v1')).toBe(PASSED);
    expect(await statusWith(relay, 'forged')).toBe(REFUSED); // uses up the refresh
    secret.put('origin-v2');
    clock += 1_000;
    expect(await statusWith(relay, 'origin-v2')).toBe(REFUSED); // rate-limited: not re-read yet
    clock += ORIGIN_SECRET_REFRESH_INTERVAL_MS;
    expect(await statusWith(relay, 'origin-v2')).toBe(PASSED);
  });

  it('accepts the only version of a secret that was never rotated (no AWSPREVIOUS)', async () => {
    const source = new SecretsManagerVersions(new SecretsManagerClient({ region: 'eu-west-1' }), SECRET_ID);
    await expect(source.accepted(false)).resolves.toEqual(['origin-v1']);
    secret.put('origin-v2');
    await expect(source.accepted(false)).resolves.toEqual(['origin-v1']); // cached
    await expect(source.accepted(true)).resolves.toEqual(['origin-v2', 'origin-v1']);
  });
});
