import { BROWSER_ENV_VARS, installedBrowser, SYSTEM_BROWSER_PATHS } from './browser';

const only =
  (...present: string[]) =>
  (p: string) =>
    present.includes(p);

describe('installedBrowser', () => {
  it('prefers CHROME_PATH over the older variable and over every usual location', () => {
    const exists = only('/opt/my/chrome', '/opt/other/chromium', '/usr/bin/chromium');
    expect(
      installedBrowser(
        { CHROME_PATH: '/opt/my/chrome', SPENDGUARD_E2E_CHROMIUM: '/opt/other/chromium' },
        exists,
      ),
    ).toEqual({ executablePath: '/opt/my/chrome', source: 'environment' });
    expect(installedBrowser({ SPENDGUARD_E2E_CHROMIUM: '/opt/other/chromium' }, exists)).toEqual({
      executablePath: '/opt/other/chromium',
      source: 'environment',
    });
  });

  it('refuses a variable that names a missing file instead of silently using another browser', () => {
    expect(() => installedBrowser({ CHROME_PATH: '/nope/chrome' }, only('/usr/bin/chromium'))).toThrow(
      /CHROME_PATH=\/nope\/chrome: no such file/,
    );
  });

  it('ignores empty variables and takes the first usual location present', () => {
    const exists = only('/usr/bin/google-chrome', '/opt/google/chrome/chrome');
    expect(installedBrowser({ CHROME_PATH: '' }, exists)).toEqual({
      executablePath: '/usr/bin/google-chrome',
      source: 'system',
    });
  });

  it('finds nothing on a machine without a browser (the packaged Chromium is used then)', () => {
    expect(installedBrowser({}, () => false)).toBeUndefined();
    expect(BROWSER_ENV_VARS[0]).toBe('CHROME_PATH');
    expect(SYSTEM_BROWSER_PATHS).toContain('/usr/bin/chromium');
  });
});
