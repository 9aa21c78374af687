import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirInUseError, lockDataDir } from './data-dir';

describe('lockDataDir', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'spendguard-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the directory, and gives it back on release', () => {
    const release = lockDataDir(dir);
    expect(readFileSync(join(dir, 'stack.pid'), 'utf8')).toBe(String(process.pid));
    release();
    expect(existsSync(join(dir, 'stack.pid'))).toBe(false);
  });

  it('refuses a directory another running process holds, with a message that says what to do', () => {
    // The parent process (npm / jest's runner) is alive for the whole test.
    writeFileSync(join(dir, 'stack.pid'), String(process.ppid));
    expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
    expect(() => lockDataDir(dir)).toThrow(`in use by another Spendguard (pid ${process.ppid})`);
    expect(readFileSync(join(dir, 'stack.pid'), 'utf8')).toBe(String(process.ppid));
  });

  it('takes over a lock left by a process that no longer runs', () => {
    writeFileSync(join(dir, 'stack.pid'), '4194000'); // above Linux's default pid_max: never running
    const release = lockDataDir(dir);
    expect(readFileSync(join(dir, 'stack.pid'), 'utf8')).toBe(String(process.pid));
    release();
  });
});
