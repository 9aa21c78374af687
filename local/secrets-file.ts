import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RECONCILED_PROVIDERS, type ReconciledProvider } from '../core/reconciliation/providers';
import type { AdminCredentialStore } from '../lambdas/shared/stores/admin-credential-store';

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
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, JSON.stringify(secrets), { mode: 0o600 });
  await chmod(path, 0o600);
  return secrets;
}

/**
 * The local stand-in for the reconciliation admin credentials in Secrets Manager: a JSON file in the
 * data dir (mode 0600), `{ "<orgId>": { "<provider>": "<admin key>" } }`, replaced atomically on every
 * write. Writes are serialized; the in-memory copy changes only after its file write succeeded, and a
 * failed write leaves the queue usable, so the next write recovers (issue 21). Without a path (memory
 * mode) the keys live in the process only.
 */
export class FileAdminCredentialStore implements AdminCredentialStore {
  private cache: Credentials | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly path: string | undefined) {}

  private async load(): Promise<Credentials> {
    if (this.cache) return this.cache;
    let parsed: unknown = {};
    if (this.path) {
      try {
        parsed = JSON.parse(await readFile(this.path, 'utf8'));
      } catch {
        parsed = {};
      }
    }
    this.cache =
      typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Credentials) : {};
    return this.cache;
  }

  /** Runs `change` on a copy after every earlier change, writes the copy, then adopts it. */
  private update(change: (all: Credentials) => void): Promise<void> {
    const run = async () => {
      const next = structuredClone(await this.load());
      change(next);
      const path = this.path;
      if (path) {
        await mkdir(dirname(path), { recursive: true, mode: 0o700 });
        const tmp = `${path}.${process.pid}.tmp`;
        await writeFile(tmp, JSON.stringify(next), { mode: 0o600 });
        await rename(tmp, path);
      }
      this.cache = next;
    };
    // A failed write rejects its own caller only: the next one starts from the last good state.
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  put(orgId: string, provider: ReconciledProvider, adminKey: string): Promise<void> {
    return this.update((all) => {
      all[orgId] = { ...all[orgId], [provider]: adminKey };
    });
  }

  delete(orgId: string, provider: ReconciledProvider): Promise<void> {
    return this.update((all) => {
      const mine = { ...all[orgId] };
      delete mine[provider];
      all[orgId] = mine;
    });
  }

  async get(orgId: string, provider: ReconciledProvider): Promise<string | undefined> {
    return (await this.load())[orgId]?.[provider];
  }

  async configured(orgId: string): Promise<ReconciledProvider[]> {
    const mine = (await this.load())[orgId] ?? {};
    return RECONCILED_PROVIDERS.filter((p) => typeof mine[p] === 'string');
  }
}

type Credentials = Record<string, Partial<Record<ReconciledProvider, string>>>;
