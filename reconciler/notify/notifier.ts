/** The sending side of `--notify`: the targets checked, the secret read, bodies rendered, signed and redacted, deliveries queued. */
import { createNetwork } from "../../client/dispatcher.js";
import { isLoopbackHost } from "../../client/light.js";
import { readRegularTextAsync } from "../../system/files.js";
import { CliError } from "../errors.js";
import type { CliIo } from "../io.js";
import { VERSION } from "../version.js";
import { Deliveries, type DeliveryCounters, type DeliveryOptions, type NotifyFormat, type PostAnswer, type Target } from "./delivery.js";
import type { NotifyEvent } from "./event.js";
import { SIGNATURE_HEADER, signatureHeader } from "./sign.js";
import { slackBody } from "./slack.js";

/** What the flags say: where to post, in which form, and the file holding the signing secret. */
export interface NotifyConfig {
  urls: string[];
  format: NotifyFormat;
  secretFile?: string;
}

/** A request to a receiver that has not answered within this is a failed attempt (retried). */
const REQUEST_TIMEOUT_MS = 10_000;

/** The flags, checked: the urls parsed, the secret read. */
export interface NotifySettings {
  targets: Target[];
  secret?: string;
}

/** Checks the urls and reads the secret; both join the run's secrets (a Slack url's path is its key), so no output shows them. */
export async function resolveNotify(config: NotifyConfig, io: CliIo): Promise<NotifySettings> {
  const targets = config.urls.map((url): Target => ({ url: checkNotifyUrl(url), format: config.format }));
  const secret = config.secretFile === undefined ? undefined : await readSecret(config.secretFile);
  io.secrets?.add(secret, ...targets.map((t) => t.url.href));
  return { targets, ...(secret !== undefined ? { secret } : {}) };
}

export class Notifier {
  private readonly deliveries: Deliveries;
  private readonly network: Network;

  constructor(
    settings: NotifySettings,
    io: CliIo,
    counters: DeliveryCounters = NO_COUNTERS,
    options: Partial<Pick<DeliveryOptions, "retry" | "log" | "post" | "settled">> = {},
  ) {
    const { secret } = settings;
    const redact = (text: string): string => io.secrets?.redact(text) ?? text;
    this.network = new Network(io.env);
    this.deliveries = new Deliveries(settings.targets, {
      post: options.post ?? ((url, body, headers) => this.network.post(url, body, headers)),
      render: (event, format, nowMs) => {
        const body = redact(JSON.stringify(format === "slack" ? slackBody(event) : event));
        const headers: Record<string, string> = {
          "content-type": "application/json",
          "user-agent": `cubeform/${VERSION}`,
          "x-cubeform-event": event.type,
          "x-cubeform-delivery": event.id,
        };
        if (secret !== undefined) headers[SIGNATURE_HEADER] = signatureHeader(secret, body, nowMs / 1000);
        return { body, headers };
      },
      counters,
      log: options.log ?? ((line) => io.stderr.write(`${redact(line)}\n`)),
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.settled
        ? { settled: (event, channel, error) => options.settled?.(event, channel, error === null ? null : redact(error)) }
        : {}),
    });
  }

  send(event: NotifyEvent): void {
    this.deliveries.send(event);
  }

  /** Delivers what is queued within `deadlineMs`, then drops the rest; returns how many were dropped. */
  async close(deadlineMs: number): Promise<number> {
    const dropped = await this.deliveries.close(deadlineMs);
    await this.network.close();
    return dropped;
  }
}

const NO_COUNTERS: DeliveryCounters = {
  sent: () => undefined,
  failed: () => undefined,
  dropped: () => undefined,
  waiting: () => undefined,
};

/** https anywhere, plain http only to this machine (as for the API); no credentials in the url (sign with --notify-secret-file instead). */
export function checkNotifyUrl(text: string): URL {
  if (!URL.canParse(text)) throw new CliError("invalid_option", "--notify: not a url (expected https://…)");
  const url = new URL(text);
  if (url.username || url.password)
    throw new CliError(
      "invalid_option",
      `--notify ${url.protocol}//${url.host}: a url must not carry a user or password; sign the events with --notify-secret-file instead`,
    );
  if (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname))) return url;
  throw new CliError("invalid_option", `--notify ${url.protocol}//${url.host}: use https (plain http is allowed only to this machine)`);
}

async function readSecret(file: string): Promise<string> {
  const text = await readRegularTextAsync(file, { maxBytes: 4096, what: "a notify secret file" }).catch((error: unknown) => {
    throw new CliError("invalid_option", `--notify-secret-file: ${error instanceof Error ? error.message : String(error)}`);
  });
  const secret = text.trim();
  if (secret.length < 16) throw new CliError("invalid_option", `--notify-secret-file ${file}: the secret must be at least 16 characters`);
  return secret;
}

/** The process's proxies and CA settings apply; made at the first request. */
class Network {
  private network: ReturnType<typeof createNetwork> | undefined;

  constructor(private readonly env: CliIo["env"]) {}

  async post(url: URL, body: string, headers: Record<string, string>): Promise<PostAnswer> {
    this.network ??= createNetwork(this.env, { connections: 1, timeoutMs: REQUEST_TIMEOUT_MS });
    const response = await this.network.request(url.href, { method: "POST", headers, body });
    await response.body.dump();
    const retryAfter = response.headers["retry-after"];
    return { status: response.statusCode, ...(typeof retryAfter === "string" ? { retryAfter } : {}) };
  }

  async close(): Promise<void> {
    await this.network?.dispatcher.close().catch(() => undefined);
  }
}
