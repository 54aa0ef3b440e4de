/** The space a key is scoped to, and its customer-visible audit log. */
import { customerAuditLog } from "../core/audit.js";
import type { RouteContext } from "../core/context.js";
import { json, notFound, type ApiResponse } from "../core/http.js";
import { listOf, object, ref } from "../core/openapi-doc.js";
import { route, type Resource } from "../core/resource.js";

function getSpace(ctx: RouteContext): ApiResponse {
  const space = ctx.core.data.spaces[ctx.auth.spaceId];
  if (!space) throw notFound("Space");
  return json(200, { ...space });
}

export const spaceResource: Resource = {
  routes: [
    route("GET", "/space", getSpace, {
      summary: "Resolve the space this API key is scoped to",
      tag: "Spaces",
      ok: [200, ref("Space")],
      errors: [401, 404],
    }),
    route("GET", "/spaces/{spaceId}/audit-log", (ctx) => json(200, { auditRows: customerAuditLog(ctx.core, ctx.auth.spaceId) }), {
      summary: "Customer-visible audit rows of the space (emulator addition)",
      tag: "Spaces",
      ok: [200, listOf("auditRows", "AuditRow")],
    }),
  ],
  schemas: {
    AuditRow: object({
      id: { type: "string" },
      at: { type: "string", format: "date-time" },
      spaceId: { type: "string" },
      category: { type: "string" },
      action: { type: "string" },
      actorType: { type: "string", enum: ["user", "admin", "system"] },
      actorId: { type: "string" },
      targetId: { type: "string" },
      details: { type: "object" },
    }),
  },
};
