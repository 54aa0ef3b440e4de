/** `cubeform status`: GET /status of a running watch, printed as text (render/status.ts), JSON or YAML. */
import { createNetwork } from "../../client/dispatcher.js";
import { tryOr } from "../../system/files.js";
import { CliError } from "../errors.js";
import type { CliIo } from "../io.js";
import type { WatchStatus } from "../metrics/status.js";
import { authorizationFor, readStatusAuthFile } from "../metrics/status-auth.js";
import { escapeText } from "../render/escape.js";
import { renderStatusText } from "../render/status.js";

export interface StatusContext {
  /** The watch's HTTP port: http://HOST:PORT (a path after it is kept, for a watch behind a proxy's prefix). */
  url: string;
  format: "text" | "json" | "yaml";
  timeoutMs: number;
  statusAuthFile?: string;
}

/** An answer larger than this is not a watch's /status. */
const MAX_STATUS_BYTES = 16 * 1024 * 1024;

export async function runStatus(ctx: StatusContext, io: CliIo): Promise<number> {
  const target = statusUrl(ctx.url);
  const headers: Record<string, string> = { accept: "application/json" };
  if (ctx.statusAuthFile !== undefined) headers.authorization = authorizationFor(await readStatusAuthFile(ctx.statusAuthFile));
  const status = await fetchStatus(target, headers, ctx.timeoutMs, io);
  if (ctx.format === "json") io.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
  else if (ctx.format === "yaml") io.stdout.write((await import("yaml")).stringify(status));
  else io.stdout.write(renderStatusText(status));
  return 0;
}

function statusUrl(text: string): URL {
  if (!URL.canParse(text))
    throw new CliError("invalid_option", `invalid option --url: not a URL: ${escapeText(text)} (e.g. http://127.0.0.1:9464)`);
  const url = new URL(text);
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new CliError("invalid_option", `invalid option --url: ${escapeText(url.protocol)} is not http: or https:`);
  if (url.username || url.password)
    throw new CliError(
      "invalid_option",
      "invalid option --url: put credentials in --status-auth-file, not in the URL (it shows in process lists)",
    );
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/status`;
  url.search = "";
  return url;
}

async function fetchStatus(target: URL, headers: Record<string, string>, timeoutMs: number, io: CliIo): Promise<WatchStatus> {
  const network = createNetwork(io.env, { connections: 1, timeoutMs });
  const where = escapeText(target.href);
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    const response = await network.request(target.href, { method: "GET", headers, signal }).catch((error: unknown) => {
      throw new CliError("unreachable", `cannot reach ${where}: ${escapeText(causeOf(error))}`);
    });
    const body = await response.body.text();
    if (response.statusCode === 401)
      throw new CliError(
        "unauthorized",
        `${where} asks for credentials: pass the watch's --status-auth-file${headers.authorization ? " (the ones sent were refused)" : ""}`,
      );
    if (response.statusCode !== 200)
      throw new CliError("bad_answer", `${where} answered ${response.statusCode}: ${escapeText(body.slice(0, 200).trim())}`);
    if (body.length > MAX_STATUS_BYTES)
      throw new CliError("bad_answer", `${where} answered more than ${MAX_STATUS_BYTES} bytes: not a watch's /status`);
    return parsed(body, where);
  } finally {
    await network.dispatcher.close();
  }
}

function parsed(body: string, where: string): WatchStatus {
  // JSON.parse never answers undefined: that is the text not being JSON.
  const value: unknown = tryOr(() => JSON.parse(body) as unknown, undefined);
  if (value === undefined) throw new CliError("bad_answer", `${where} did not answer JSON: is it a cubeform watch's --metrics-port?`);
  const version = (value as { formatVersion?: unknown } | null)?.formatVersion;
  if (version !== 1)
    throw new CliError("bad_answer", `${where} answered formatVersion ${escapeText(String(version))}: this cubeform reads version 1`);
  return value as WatchStatus;
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code === "ECONNREFUSED" || (error as { code?: string })?.code === "ECONNREFUSED")
    return "connection refused (is watch running with --metrics-port?)";
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) return "no answer in time";
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
}
