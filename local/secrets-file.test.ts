/**
 * Local secrets on disk (issue 21): the data directory is owner-only, and one failed credential write
 * does not make the later ones fail.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownerOnlyDir } from './data-dir';
import { FileAdminCredentialStore } from './secrets-file';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spendguard-secrets-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

const modeOf = async (p: string) => (await stat(p)).mode & 0o777;

describe('ownerOnlyDir', () => {
  it('creates the data directory 0700 whatever the umask', async () => {
    const old = process.umask(0o022);
    try {
      await ownerOnlyDir(join(root, 'a', '.spendguard'));
    } finally {
      process.umask(old);
    }
    expect(await modeOf(join(root, 'a', '.spendguard'))).toBe(0o700);
  });

  it('tightens a data directory of ours created earlier with the umask, leaves anyone else’s alone', async () => {
    const ours = join(root, 'ours');
    await mkdir(ours);
    await chmod(ours, 0o755);
    await writeFile(join(ours, 'secrets.json'), '{}');
    await ownerOnlyDir(ours);
    expect(await modeOf(ours)).toBe(0o700);

    const theirs = join(root, 'theirs');
    await mkdir(theirs);
    await chmod(theirs, 0o755);
    await ownerOnlyDir(theirs);
    expect(await modeOf(theirs)).toBe(0o755);
  });
});

describe('FileAdminCredentialStore', () => {
  it('recovers after a failed write: the next write succeeds and the failed one left nothing behind', async () => {
    const path = join(root, 'reconciliation-credentials.json');
    const store = new FileAdminCredentialStore(path);
    // The temporary file's name taken by a directory: this write fails (as a full disk would).
    const tmp = `${path}.${process.pid}.tmp`;
    await mkdir(tmp);
    await expect(store.put('org_a', 'openai', 'sk-admin-first')).rejects.toThrow();
    expect(await store.configured('org_a')).toEqual([]);
    await rm(tmp, { recursive: true });

    await store.put('org_a', 'anthropic', 'sk-ant-admin01-second');
    expect(await store.configured('org_a')).toEqual(['anthropic']);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      org_a: { anthropic: 'sk-ant-admin01-second' },
    });
    expect(await modeOf(path)).toBe(0o600);
  });

  it('deletes one provider’s credential, on disk as well', async () => {
    const path = join(root, 'creds.json');
    const store = new FileAdminCredentialStore(path);
    await store.put('org_a', 'openai', 'sk-admin-1');
    await store.put('org_a', 'openrouter', 'sk-or-1');
    await store.delete('org_a', 'openai');
    expect(await store.configured('org_a')).toEqual(['openrouter']);
    expect(await new FileAdminCredentialStore(path).get('org_a', 'openai')).toBeUndefined();
    expect(await new FileAdminCredentialStore(path).get('org_a', 'openrouter')).toBe('sk-or-1');
  });

  it('serializes concurrent writes: none is lost', async () => {
    const path = join(root, 'creds.json');
    const store = new FileAdminCredentialStore(path);
    await Promise.all(
      ['openai', 'anthropic', 'openrouter'].map((p, i) =>
        store.put(`org_${i}`, p as 'openai', `key-${p}-0000`),
      ),
    );
    const reread = new FileAdminCredentialStore(path);
    expect(await reread.configured('org_0')).toEqual(['openai']);
    expect(await reread.configured('org_1')).toEqual(['anthropic']);
    expect(await reread.configured('org_2')).toEqual(['openrouter']);
  });
});
