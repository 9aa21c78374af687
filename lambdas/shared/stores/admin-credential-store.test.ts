import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  RestoreSecretCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { SecretsManagerAdminCredentialStore } from './admin-credential-store';

const sm = mockClient(SecretsManagerClient);
const named = (name: string) => Object.assign(new Error(name), { name });
const store = () =>
  new SecretsManagerAdminCredentialStore(new SecretsManagerClient({}), 'Spendguard/reconciliation');

beforeEach(() => sm.reset());

describe('SecretsManagerAdminCredentialStore', () => {
  it('creates one secret per organization and provider, and replaces its value when it exists', async () => {
    sm.on(CreateSecretCommand).rejectsOnce(named('ResourceExistsException'));
    sm.on(PutSecretValueCommand).resolves({});
    await store().put('org_a', 'openai', 'sk-admin-1');
    expect(sm.commandCalls(CreateSecretCommand)[0]?.args[0].input).toMatchObject({
      Name: 'Spendguard/reconciliation/org_a/openai',
      SecretString: 'sk-admin-1',
    });
    expect(sm.commandCalls(PutSecretValueCommand)[0]?.args[0].input).toEqual({
      SecretId: 'Spendguard/reconciliation/org_a/openai',
      SecretString: 'sk-admin-1',
    });
  });

  it('reads a key, and answers undefined / not configured for a missing or deleted secret', async () => {
    sm.on(GetSecretValueCommand, { SecretId: 'Spendguard/reconciliation/org_a/anthropic' }).resolves({
      SecretString: 'k',
    });
    sm.on(GetSecretValueCommand, { SecretId: 'Spendguard/reconciliation/org_a/openai' }).rejects(
      named('ResourceNotFoundException'),
    );
    sm.on(DescribeSecretCommand, { SecretId: 'Spendguard/reconciliation/org_a/openai' }).resolves({});
    sm.on(DescribeSecretCommand, { SecretId: 'Spendguard/reconciliation/org_a/anthropic' }).resolves({
      DeletedDate: new Date(),
    });
    sm.on(DescribeSecretCommand, { SecretId: 'Spendguard/reconciliation/org_a/openrouter' }).rejects(
      named('ResourceNotFoundException'),
    );
    expect(await store().get('org_a', 'anthropic')).toBe('k');
    expect(await store().get('org_a', 'openai')).toBeUndefined();
    expect(await store().configured('org_a')).toEqual(['openai']);
  });

  it('refuses an organization id that would escape its name prefix', async () => {
    await expect(store().put('../org_b', 'openai', 'k')).rejects.toThrow('cannot name a secret');
    expect(sm.calls()).toHaveLength(0);
  });

  it('does not swallow other errors (access denied)', async () => {
    sm.on(GetSecretValueCommand).rejects(named('AccessDeniedException'));
    await expect(store().get('org_a', 'openai')).rejects.toThrow('AccessDeniedException');
  });

  it('deletes with a 7-day recovery window, and a later put restores the secret before replacing it', async () => {
    sm.on(DeleteSecretCommand).resolves({});
    await store().delete('org_a', 'openai');
    expect(sm.commandCalls(DeleteSecretCommand)[0]?.args[0].input).toEqual({
      SecretId: 'Spendguard/reconciliation/org_a/openai',
      RecoveryWindowInDays: 7,
    });
    sm.on(CreateSecretCommand).rejectsOnce(named('InvalidRequestException'));
    sm.on(RestoreSecretCommand).resolves({});
    sm.on(PutSecretValueCommand).resolves({});
    await store().put('org_a', 'openai', 'sk-admin-2');
    expect(sm.commandCalls(RestoreSecretCommand)).toHaveLength(1);
    expect(sm.commandCalls(PutSecretValueCommand)[0]?.args[0].input.SecretString).toBe('sk-admin-2');
  });

  it('deleting a credential never stored, or already deleted, succeeds; other errors surface', async () => {
    sm.on(DeleteSecretCommand).rejects(named('ResourceNotFoundException'));
    await expect(store().delete('org_a', 'openai')).resolves.toBeUndefined();
    sm.reset();
    sm.on(DeleteSecretCommand).rejects(named('InvalidRequestException'));
    await expect(store().delete('org_a', 'openai')).resolves.toBeUndefined();
    sm.reset();
    sm.on(DeleteSecretCommand).rejects(named('AccessDeniedException'));
    await expect(store().delete('org_a', 'openai')).rejects.toThrow('AccessDeniedException');
  });
});
