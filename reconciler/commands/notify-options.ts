/** The notification flags of watch, apply and drift: --notify URL (repeatable), --notify-format, --notify-secret-file. */
import { Option, type Command } from "commander";
import { resolve } from "node:path";
import "../../schema/zod-english.js";
import * as z from "zod/mini";
import { CliError } from "../errors.js";
import { cwdOf, type CliIo } from "../io.js";
import type { NotifySettings } from "../notify/index.js";
import { collect } from "./options.js";

export const NotifyOptions = z.object({
  notify: z._default(z.array(z.string().check(z.minLength(1))), []),
  notifyFormat: z._default(z.enum(["json", "slack"]), "json"),
  notifySecretFile: z.optional(z.string().check(z.minLength(1))),
});

export function addNotifyOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        "--notify <url>",
        "post events (drift, failed applies, broken commits, reverted rollouts, held changes) to this url as JSON (repeatable; https, or http to this machine)",
      ).argParser(collect),
    )
    .addOption(
      new Option("--notify-format <format>", "json (versioned events), or slack (an incoming webhook's {text, blocks})")
        .choices(["json", "slack"])
        .default("json"),
    )
    .option(
      "--notify-secret-file <path>",
      "sign each event: X-Cubeform-Signature: t=…,v1=HMAC-SHA256(secret, `${t}.${body}`), secret read from this file",
    );
}

/** The checked settings (urls parsed, secret read and added to the run's secrets), or undefined without --notify. */
export async function notifySettings(options: z.output<typeof NotifyOptions>, io: CliIo): Promise<NotifySettings | undefined> {
  if (options.notify.length === 0) {
    if (options.notifySecretFile !== undefined) throw new CliError("invalid_option", "--notify-secret-file needs --notify URL");
    return undefined;
  }
  const { resolveNotify } = await import("../notify/index.js");
  const secretFile = options.notifySecretFile === undefined ? {} : { secretFile: resolve(cwdOf(io), options.notifySecretFile) };
  return resolveNotify({ urls: options.notify, format: options.notifyFormat, ...secretFile }, io);
}
