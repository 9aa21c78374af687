import fc from 'fast-check';
import { groupRoles, isRole, roleAtLeast, roleOf, ROLES } from './roles';

describe('roleOf', () => {
  it.each([
    [['admin'], false, 'admin'],
    [['member'], false, 'member'],
    [['viewer'], true, 'viewer'],
    [['viewer', 'member'], false, 'member'],
    [['member', 'admin', 'viewer'], false, 'admin'],
    [[], true, 'admin'],
    [[], false, 'viewer'],
    [undefined, false, 'viewer'],
    ['admin', false, 'viewer'], // a string is not the array Cognito sends
    [['Admin', 'billing'], false, 'viewer'],
    [['billing'], true, 'admin'],
  ])('groups %j, owner %s → %s', (groups, owner, expected) => {
    expect(roleOf(groups, owner)).toBe(expected);
  });

  it('never grants more than the strongest known group, or admin only to a group-less owner', () => {
    const name = fc.oneof(fc.constantFrom(...ROLES), fc.string({ maxLength: 8 }));
    fc.assert(
      fc.property(fc.array(name, { maxLength: 6 }), fc.boolean(), (groups, owner) => {
        const role = roleOf(groups, owner);
        const known = groups.filter(isRole);
        if (known.length === 0) expect(role).toBe(owner ? 'admin' : 'viewer');
        else {
          expect(known).toContain(role);
          for (const g of known) expect(roleAtLeast(role, g)).toBe(true);
        }
      }),
    );
  });
});

describe('roleAtLeast', () => {
  it('orders admin over member over viewer', () => {
    expect(roleAtLeast('admin', 'member')).toBe(true);
    expect(roleAtLeast('member', 'member')).toBe(true);
    expect(roleAtLeast('member', 'admin')).toBe(false);
    expect(roleAtLeast('viewer', 'member')).toBe(false);
    expect(roleAtLeast('viewer', 'viewer')).toBe(true);
  });
});

describe('groupRoles', () => {
  it('keeps known names once, strongest first', () => {
    expect(groupRoles(['viewer', 'admin', 'viewer', 'ops'])).toEqual(['admin', 'viewer']);
    expect(groupRoles(null)).toEqual([]);
  });
});
