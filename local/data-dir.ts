import { chmod, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Creates the data directory owner-only (0700): it holds the ledger, key hashes, the pepper and admin
 * credentials. A directory of ours made earlier with the umask (it holds secrets.json) is tightened too;
 * someone else's existing directory is left as it is.
 */
export async function ownerOnlyDir(dir: string): Promise<void> {
  const created = await mkdir(dir, { recursive: true, mode: 0o700 });
  if (created !== undefined) {
    await chmod(dir, 0o700); // mkdir's mode passes through the umask
    return;
  }
  const ours = await stat(join(dir, 'secrets.json')).then(
    () => true,
    () => false,
  );
  if (ours && ((await stat(dir)).mode & 0o077) !== 0) await chmod(dir, 0o700);
}
