/**
 * Optional access control of the status page and /status (--status-auth-file): the file holds one line, either USER:PASSWORD (HTTP basic auth:
 * a browser asks for it) or a TOKEN without a colon (a bearer token, for scripts and `cubeform status`). /metrics and the probes stay open, as a
 * kubelet and Prometheus scrape them without credentials. The secret is compared in constant time and never written anywhere.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { CliError } from "../errors.js";
import { readRegularTextAsync } from "../../system/files.js";

export interface StatusAuth {
  /** Whether the request's Authorization header carries the secret. */
  allows(authorization: string | undefined): boolean;
  /** The WWW-Authenticate header of a 401. */
  challenge: string;
}

/** The Authorization header a client sends for the secret of `text` (the file's content). */
export function authorizationFor(text: string): string {
  const secret = secretOf(text);
  return secret.includes(":") ? `Basic ${Buffer.from(secret, "utf8").toString("base64")}` : `Bearer ${secret}`;
}

export async function readStatusAuthFile(path: string): Promise<string> {
  return readRegularTextAsync(path, { maxBytes: 4096, what: "a status auth file" }).catch((error: unknown) => {
    throw new CliError(
      "file_unreadable",
      `cannot read the status auth file ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
}

export function statusAuth(text: string, path: string): StatusAuth {
  const secret = secretOf(text);
  if (secret === "")
    throw new CliError(
      "invalid_option",
      `the status auth file ${path} is empty: write USER:PASSWORD (basic auth) or a TOKEN (bearer) on one line`,
    );
  const expected = digest(authorizationFor(secret));
  return {
    allows: (authorization) => authorization !== undefined && timingSafeEqual(digest(normalized(authorization)), expected),
    challenge: secret.includes(":") ? 'Basic realm="cubeform watch", charset="UTF-8"' : 'Bearer realm="cubeform watch"',
  };
}

/** The first line, trimmed. */
function secretOf(text: string): string {
  return (text.split(/\r?\n/)[0] ?? "").trim();
}

/** The scheme is case-insensitive (RFC 9110); the credentials are not. */
function normalized(authorization: string): string {
  const match = /^\s*(basic|bearer)\s+(\S+)\s*$/i.exec(authorization);
  if (match === null) return authorization;
  return `${match[1]!.toLowerCase() === "basic" ? "Basic" : "Bearer"} ${match[2]}`;
}

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();
