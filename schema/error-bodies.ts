/** The API's error bodies the client reads (client/errors.ts): zod/mini, their own module, so reading an error builds no API schema. */
import "./zod-english.js";
import * as z from "zod/mini";

/** The general error body: a single string field. */
export const ErrorBody = z.object({ error: z.string() });

/** The typed 409 of DELETE on a protected cube (spec §7). The cube block may be partial or absent (reference). */
export const TerminationProtectedBody = z.object({
  error: z.object({
    code: z.literal("termination_protected"),
    message: z.string(),
    cube: z.optional(
      z.looseObject({
        id: z.string(),
        terminationProtectionChangedAt: z.optional(z.nullable(z.string())),
        terminationProtectionChangedBy: z.optional(z.nullable(z.string())),
      }),
    ),
  }),
});
export type TerminationProtectedBody = z.infer<typeof TerminationProtectedBody>;

/** The 409 of a domain create/PATCH that would mix PROXY-protocol settings on one port (reference). */
export const ProxyProtocolMismatchBody = z.object({
  error: z.string(),
  errorMeta: z.object({ code: z.literal("proxy_protocol_port_mismatch"), port: z.int(), domains: z.array(z.string()) }),
});
