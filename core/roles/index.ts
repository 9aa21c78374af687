export { GROUPS_CLAIM, ROLES, groupRoles, isRole, roleAtLeast, roleOf, type Role } from './roles';
