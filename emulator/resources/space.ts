/** The space a key is scoped to, and its customer-visible audit log. */
import { customerAuditLog } from "../core/audit.js";
import type { RouteContext } from "../core/context.js";
import { json, notFound, type ApiResponse } from "../core/http.js";
import { listOf, object, ref } from "../core/openapi-doc.js";
import { taggedRoutes, type Resource } from "../core/resource.js";

function getSpace(ctx: RouteContext): ApiResponse {
  const space = ctx.core.data.spaces[ctx.auth.spaceId];
  if (!space) throw notFound("Space");
  return json(200, { ...space });
}

const auditLog = (ctx: RouteContext): ApiResponse => json(200, { auditRows: customerAuditLog(ctx.core, ctx.auth.spaceId) });

export const spaceResource: Resource = {
  routes: taggedRoutes("Spaces", [
    [["GET", "/space", getSpace], "Resolve the space this API key is scoped to", [200, ref("Space")], [401, 404]],
    [
      ["GET", "/spaces/{spaceId}/audit-log", auditLog],
      "Customer-visible audit rows of the space (emulator addition)",
      [200, listOf("auditRows", "AuditRow")],
    ],
  ]),
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
