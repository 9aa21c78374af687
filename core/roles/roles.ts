/**
 * People's roles in an organization (design decision 16, issue 21). A role comes from the Cognito
 * groups of the person's ID token (`cognito:groups`); the strongest group wins.
 *
 * - `admin`: everything, including what moves money: budget and policy, pricing rates, reconciliation
 *   credentials, organization-scope kills and resumes, settled-spend corrections, audit retention.
 * - `member`: reads; creates and revokes API keys; stops and resumes a kill at session or key scope;
 *   runs the forecast and the reconciliation now; reads the audit log.
 * - `viewer`: reads only (not the audit log).
 *
 * A token with no known group is a `viewer`, except for the organization's owner (its first person,
 * see {@link roleOf}): least privilege for a user someone forgot to put in a group.
 *
 * Pure: no I/O.
 * @module
 */

/** Every role, strongest first. */
export const ROLES = ['admin', 'member', 'viewer'] as const;
/** One role of a person. */
export type Role = (typeof ROLES)[number];

/** The Cognito claim that lists a user's groups. */
export const GROUPS_CLAIM = 'cognito:groups';

const RANK: Readonly<Record<Role, number>> = { admin: 3, member: 2, viewer: 1 };

/** True when `s` names a role. */
export function isRole(s: unknown): s is Role {
  return typeof s === 'string' && Object.hasOwn(RANK, s);
}

/** True when `role` may do what `needed` may (admin ⊇ member ⊇ viewer). */
export function roleAtLeast(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

/**
 * The roles named by a `cognito:groups` claim value (an array of group names; anything else names
 * none). Unknown group names are ignored, so a pool's other groups grant nothing here.
 *
 * @example groupRoles(['viewer', 'admin', 'billing']) // ['admin', 'viewer']
 */
export function groupRoles(claim: unknown): Role[] {
  if (!Array.isArray(claim)) return [];
  const present = new Set(claim.filter(isRole));
  return ROLES.filter((r) => present.has(r));
}

/**
 * The role of a person: the strongest of their groups; with none, `admin` for the organization's owner
 * (the first person of the organization to use the API) and `viewer` for everyone else.
 *
 * @example roleOf(['member'], true) // 'member' (a group always decides)
 * @example roleOf([], true) // 'admin'
 * @example roleOf(undefined, false) // 'viewer'
 */
export function roleOf(groupsClaim: unknown, isOwner: boolean): Role {
  const roles = groupRoles(groupsClaim);
  return roles[0] ?? (isOwner ? 'admin' : 'viewer');
}
