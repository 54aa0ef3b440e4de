/** Audit rows: customer-visible ones (served at /spaces/{id}/audit-log) and internal ones. */
import type { Core } from "./core.js";
import type { AuditRow } from "../types.js";
import { newId } from "./ids.js";

export function writeAudit(core: Core, row: Omit<AuditRow, "id">): AuditRow {
  const stored: AuditRow = { id: newId("aud"), ...row };
  core.data.audit.push(stored);
  return stored;
}

export function auditRows(core: Core, filter: { visibility?: "customer" | "internal"; spaceId?: string } = {}): AuditRow[] {
  return core.data.audit
    .filter((row) => (!filter.visibility || row.visibility === filter.visibility) && (!filter.spaceId || row.spaceId === filter.spaceId))
    .map((row) => structuredClone(row));
}

/** Customer view: visible rows only, and never an operator's reason. */
export function customerAuditLog(core: Core, spaceId: string): Omit<AuditRow, "reason" | "visibility">[] {
  return auditRows(core, { visibility: "customer", spaceId }).map(({ reason: _reason, visibility: _visibility, ...row }) => row);
}
