/**
 * CLI device login (RFC 8628, reference "CLI Auth"): start mints a device code (returned once, kept hashed) and a
 * user code; the user approves on the verification page (/__emulator/device?code=…) or the admin surface, and the
 * next poll returns a new API key once.
 */
import { timingSafeEqual } from "node:crypto";
import { DeviceLoginApproved, DeviceLoginStarted, DevicePollRequest } from "../../schema/api.js";
import { addKey } from "../core/auth.js";
import type { Core } from "../core/core.js";
import { HttpError, json, mediaType, notFound, parseWith, type ApiRequest, type ApiResponse } from "../core/http.js";
import { isLoopbackHostHeader } from "../core/loopback.js";
import { tryOr } from "../../system/files.js";
import { randomHex, sha256Hex } from "../core/ids.js";
import { rowOf } from "../core/indexes.js";
import { publicRoute, type PublicContext, type Resource } from "../core/resource.js";
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
  const record: DeviceLoginRecord = {
    deviceCodeHash: sha256Hex(deviceCode),
    userCode: userCode(),
    status: "pending",
    spaceId: null,
    expiresAtMs: ctx.now + DEVICE_CODE_TTL_S * 1000,
  };
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
  if (record.status === "pending")
    throw new HttpError(428, "authorization_pending: the login has not been approved yet; keep polling at the given interval");
  const spaceId = record.spaceId as string;
  record.status = "consumed";
  return json(200, { apiKey: addKey(ctx.core.data, spaceId, "owner"), spaceId });
}

/** Admin surface: the user approves (or denies) the login with this user code, for a space. */
export function answerDeviceLogin(core: Core, input: { userCode: string; spaceId?: string; approve?: boolean }): void {
  const record = rowOf(core.data.deviceLogins, input.userCode);
  if (record?.status !== "pending" || core.now() > record.expiresAtMs) throw notFound("Pending login with that user code");
  if (input.approve === false) {
    record.status = "denied";
    return;
  }
  const spaceId = input.spaceId ?? core.data.initialSpaceId;
  if (!Object.hasOwn(core.data.spaces, spaceId)) throw notFound("Space");
  record.status = "approved";
  record.spaceId = spaceId;
}

/** The page the CLI's verification URL opens: the code, and a form that approves or denies it. */
export function deviceLoginPage(core: Core, req: ApiRequest): ApiResponse {
  const code = req.query.get("code") ?? "";
  if (code === "")
    return page(
      200,
      `<p>Enter the code the terminal shows.</p>\n<form method="get"><input name="code" autocomplete="off" required> <button>Continue</button></form>`,
    );
  const record = pendingLogin(core, code);
  if (!record)
    return page(
      404,
      `<p>No login is waiting with the code <code>${escapeHtml(code)}</code>: it expired, was answered already, or never existed. Start the login again.</p>`,
    );
  const fields = `<input type="hidden" name="code" value="${escapeHtml(record.userCode)}"><input type="hidden" name="token" value="${formToken(core, record.userCode)}">`;
  return page(
    200,
    `<p>A command-line login asks for an owner API key of space <code>${escapeHtml(core.data.initialSpaceId)}</code>. Approve only if your terminal shows this code:</p>
<p class="code">${escapeHtml(record.userCode)}</p>
<form method="post" action="/__emulator/device/answer">${fields}<button name="answer" value="approve">Approve</button> <button name="answer" value="deny">Deny</button></form>`,
  );
}

/**
 * The page's form. Any web page can send a form POST, so it must come from this page: a same-origin (or no) Origin
 * and Sec-Fetch-Site, and the token only the page shows (an HMAC of the user code). The admin surface checked Host.
 */
export function deviceLoginForm(core: Core, req: ApiRequest): ApiResponse {
  if (mediaType(req) !== "application/x-www-form-urlencoded") return page(415, "<p>Send the form of the device-login page.</p>");
  if (!sameOrigin(req)) return page(403, "<p>This form is answered only from the emulator's own device-login page.</p>");
  const form = new URLSearchParams(req.body);
  const userCode = form.get("code") ?? "";
  if (!tokenMatches(core, userCode, form.get("token") ?? ""))
    return page(403, "<p>The form's token does not match: open the login link again.</p>");
  const approve = form.get("answer") === "approve";
  try {
    core.mutate(() => answerDeviceLogin(core, { userCode, approve }));
  } catch (error) {
    if (error instanceof HttpError) return page(error.status, `<p>${escapeHtml(error.message)}: start the login again.</p>`);
    throw error;
  }
  return page(
    200,
    approve
      ? "<p>Approved. The command line receives its key at its next poll; you can close this page.</p>"
      : "<p>Denied. The command line stops waiting at its next poll.</p>",
  );
}

function pendingLogin(core: Core, userCode: string): DeviceLoginRecord | undefined {
  const record = rowOf(core.data.deviceLogins, userCode);
  return record?.status === "pending" && core.now() <= record.expiresAtMs ? record : undefined;
}

function formToken(core: Core, userCode: string): string {
  return core.presigner.token(`device-login\n${userCode}`);
}

function tokenMatches(core: Core, userCode: string, token: string): boolean {
  const expected = Buffer.from(formToken(core, userCode));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function sameOrigin(req: ApiRequest): boolean {
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none") return false;
  const origin = req.headers.origin;
  return origin === undefined || tryOr(() => isLoopbackHostHeader(new URL(origin).host), false);
}

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "x-frame-options": "DENY",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "referrer-policy": "no-referrer",
};

/** A small HTML page that no other site can frame, script or submit elsewhere. */
function page(status: number, content: string): ApiResponse {
  const text = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cube emulator: CLI login</title>
<style>body{font-family:sans-serif;max-width:40em;margin:3em auto}.code{font:bold 2em monospace}button{font-size:1.1em;margin-right:.5em}</style></head>
<body><h1>CLI login</h1>
${content}
</body></html>
`;
  return { status, text, headers: PAGE_HEADERS };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export const cliAuthResource: Resource = {
  routes: [
    publicRoute("POST", "/auth/cli/start", startLogin, {
      summary: "Begin a CLI device-authorization login (RFC 8628); approve it on the admin surface (POST /__emulator/device)",
      tag: "CLI Auth",
      ok: [200, DeviceLoginStarted],
    }),
    publicRoute("POST", "/auth/cli/poll", pollLogin, {
      summary: "Poll for CLI device-authorization approval (RFC 8628): 428 pending, 403 denied, 410 expired/consumed/unknown",
      tag: "CLI Auth",
      body: DevicePollRequest,
      ok: [200, DeviceLoginApproved],
      errors: [400, 403, 410, 428],
    }),
  ],
};
