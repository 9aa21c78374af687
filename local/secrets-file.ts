import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The local stack's stand-ins for the Secrets Manager secrets: generated once, kept in the data dir. */
export interface LocalSecrets {
  pepper: string;
  originSecret: string;
}

export async function loadOrCreateSecrets(path: string | undefined): Promise<LocalSecrets> {
  const fresh = (): LocalSecrets => ({
    pepper: randomBytes(32).toString('base64url'),
    originSecret: randomBytes(32).toString('base64url'),
  });
  if (!path) return fresh();
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<LocalSecrets>;
    if (typeof parsed.pepper === 'string' && typeof parsed.originSecret === 'string') {
      return { pepper: parsed.pepper, originSecret: parsed.originSecret };
    }
  } catch {
    // first start: create below
  }
  const secrets = fresh();
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(secrets), { mode: 0o600 });
  await chmod(path, 0o600);
  return secrets;
}
