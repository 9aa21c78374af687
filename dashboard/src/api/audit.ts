/** Types of GET /v1/audit (docs/api.md "Audit log"), inferred from core/schemas/api/audit.ts. */
import type * as Wire from '../../../core/schemas/api/wire-types';

export type AuditActor = Wire.AuditActor;
export type AuditEntry = Wire.AuditEntry;
export type AuditPage = Wire.AuditPage;
