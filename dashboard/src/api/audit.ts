/**
 * Types of GET /v1/audit (docs/api.md "Audit log"); the source is the zod schema in
 * core/schemas/api/audit.ts.
 */

export type AuditActor =
  | { kind: 'person'; sub: string; email: string | null; role: 'admin' | 'member' | 'viewer' }
  | { kind: 'key'; keyId: string };

export interface AuditEntry {
  id: string;
  at: string;
  action: string;
  actor: AuditActor;
  target: string | null;
  before: unknown;
  after: unknown;
}

export interface AuditPage {
  entries: AuditEntry[];
  nextCursor: string | null;
  retentionDays: number;
}
