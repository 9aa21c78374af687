import fc from 'fast-check';
import { allowedHosts, hostAllowed } from './loopback-host';

describe('allowedHosts / hostAllowed', () => {
  it('names the loopback address with the port, in any letter case', () => {
    const allowed = allowedHosts('127.0.0.1', 8787);
    for (const h of ['127.0.0.1:8787', 'localhost:8787', 'LocalHost:8787', '[::1]:8787']) {
      expect(hostAllowed(h, allowed)).toBe(true);
    }
    for (const h of [
      undefined,
      '',
      'localhost',
      '127.0.0.1',
      'localhost:8788',
      'evil.example:8787',
      '[::2]:8787',
    ]) {
      expect(hostAllowed(h, allowed)).toBe(false);
    }
  });

  it('accepts a literal listen address as well, never a wildcard one', () => {
    expect(hostAllowed('192.168.1.5:9000', allowedHosts('192.168.1.5', 9000))).toBe(true);
    expect(hostAllowed('[::1]:9000', allowedHosts('::1', 9000))).toBe(true);
    expect(allowedHosts('0.0.0.0', 9000)).toEqual(
      new Set(['127.0.0.1:9000', 'localhost:9000', '[::1]:9000']),
    );
  });

  it('lets browsers leave port 80 out', () => {
    expect(hostAllowed('localhost', allowedHosts('127.0.0.1', 80))).toBe(true);
  });

  it('property: no DNS name other than localhost passes, whatever the port', () => {
    fc.assert(
      fc.property(fc.domain(), fc.integer({ min: 1, max: 65_535 }), (name, port) => {
        fc.pre(name.toLowerCase() !== 'localhost');
        expect(hostAllowed(`${name}:${port}`, allowedHosts('127.0.0.1', port))).toBe(false);
        expect(hostAllowed(name, allowedHosts('127.0.0.1', port))).toBe(false);
      }),
    );
  });
});
