import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** Another running stack holds the data directory. */
export class DataDirInUseError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `the data directory ${dir} is in use by another Spendguard (pid ${pid}): stop it, or start this one ` +
        'with --data-dir DIR (or --memory)',
    );
    this.name = 'DataDirInUseError';
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but is someone else's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the data directory for this process (`<dir>/stack.pid`): the stand-ins' LevelDB files allow one
 * process, and a second stack used to die on their lock with a raw stack trace. A lock left by a process
 * that no longer runs is taken over. Returns the release.
 */
export function lockDataDir(dir: string): () => void {
  const file = join(dir, 'stack.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && running(holder)) {
        throw new DataDirInUseError(dir, holder);
      }
      rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`could not take the data directory ${dir}`);
}
