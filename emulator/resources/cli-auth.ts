/**
 * CLI device login (RFC 8628, reference "CLI Auth"): start mints a device code (returned once,
 * kept hashed) and a user code; the user approves in a browser — here, on the admin surface
 * (approveDeviceLogin) — and the next poll returns a new API key once.
 */
import { DevicePollRequest } from "../../schema/api.js";
import { addKey } from "../core/auth.js";
import type { Core } from "../core/core.js";
import { HttpError, json, notFound, parseWith, type ApiResponse } from "../core/http.js";
import { randomHex, sha256Hex } from "../core/ids.js";
import { object } from "../core/openapi-doc.js";
import type { PublicContext, Resource } from "../core/resource.js";
import type { DeviceLoginRecord } from "../core/state.js";

export const DEVICE_CODE_TTL_S = 600;
/** Seconds between polls the emulator asks for (the live service asks for more). */
export const POLL_INTERVAL_S = 1;
const LETTERS = "BCDFGHJKLMNPQRSTVWXZ";

function userCode(): string {
  const pick = () => Array.from({ length: 4 }, () => LETTERS[Math.floor(Math.random() * LETTERS.length)]).join("");
  return `KROVA-${pick()}-${pick()}`;
}

function startLogin(ctx: PublicContext): ApiResponse {
  const deviceCode = randomHex(32);
  const record: DeviceLoginRecord = { deviceCodeHash: sha256Hex(deviceCode), userCode: userCode(), status: "pending", spaceId: null, expiresAtMs: ctx.now + DEVICE_CODE_TTL_S * 1000 };
  ctx.core.data.deviceLogins[record.userCode] = record;
  const verificationUri = `${ctx.origin}/__emulator/device`;
  return json(200, {
    deviceCode,
    userCode: record.userCode,
    verificationUri,
    verificationUriComplete: `${verificationUri}?code=${record.userCode}`,
    interval: POLL_INTERVAL_S,
    expiresIn: DEVICE_CODE_TTL_S,
  });
}

function pollLogin(ctx: PublicContext): ApiResponse {
  const { deviceCode } = parseWith(DevicePollRequest, ctx.body);
  const hash = sha256Hex(deviceCode);
  const record = Object.values(ctx.core.data.deviceLogins).find((r) => r.deviceCodeHash === hash);
  if (!record || record.status === "consumed" || ctx.now > record.expiresAtMs) {
    throw new HttpError(410, "The device code expired, was already consumed, or is unknown: start the login again");
  }
  if (record.status === "denied") throw new HttpError(403, "The login request was denied");
  if (record.status === "pending") throw new HttpError(428, "authorization_pending: the login has not been approved yet; keep polling at the given interval");
  const spaceId = record.spaceId as string;
  record.status = "consumed";
  return json(200, { apiKey: addKey(ctx.core.data, spaceId, "owner"), spaceId });
}

/** Admin surface: the user approves (or denies) the login with this user code, for a space. */
export function answerDeviceLogin(core: Core, input: { userCode: string; spaceId?: string; approve?: boolean }): void {
  const record = Object.hasOwn(core.data.deviceLogins, input.userCode) ? core.data.deviceLogins[input.userCode] : undefined;
  if (!record || record.status !== "pending" || core.now() > record.expiresAtMs) throw notFound("Pending login with that user code");
  if (input.approve === false) {
    record.status = "denied";
    return;
  }
  const spaceId = input.spaceId ?? core.data.initialSpaceId;
  if (!Object.hasOwn(core.data.spaces, spaceId)) throw notFound("Space");
  record.status = "approved";
  record.spaceId = spaceId;
}

export const cliAuthResource: Resource = {
  name: "cli-auth",
  routes: [
    {
      method: "POST",
      path: "/auth/cli/start",
      public: true,
      handler: startLogin,
      doc: {
        summary: "Begin a CLI device-authorization login (RFC 8628); approve it on the admin surface (POST /__emulator/device)",
        tag: "CLI Auth",
        ok: [
          200,
          object({
            deviceCode: { type: "string" },
            userCode: { type: "string" },
            verificationUri: { type: "string", format: "uri" },
            verificationUriComplete: { type: "string", format: "uri" },
            interval: { type: "integer" },
            expiresIn: { type: "integer" },
          }),
        ],
      },
    },
    {
      method: "POST",
      path: "/auth/cli/poll",
      public: true,
      handler: pollLogin,
      doc: {
        summary: "Poll for CLI device-authorization approval (RFC 8628): 428 pending, 403 denied, 410 expired/consumed/unknown",
        tag: "CLI Auth",
        body: DevicePollRequest,
        ok: [200, object({ apiKey: { type: "string" }, spaceId: { type: "string" } })],
        errors: [400, 403, 410, 428],
      },
    },
  ],
};
