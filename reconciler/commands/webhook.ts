import type { Command } from "commander";
import * as z from "zod/mini";
import type { CliIo } from "../io.js";
import { addDay2Options, exitWith, shareExamples } from "./options.js";
import { parseOptions } from "../arguments/options.js";
import { day2Context as context } from "../arguments/connect.js";

const DeliveriesOptions = z.object({
  limit: z._default(
    z.coerce.number().check(z.int(), z.minimum(1, "--limit must be 1 to 100"), z.maximum(100, "--limit must be 1 to 100")),
    50,
  ),
});

export function register(program: Command, io: CliIo): void {
  const webhook = program
    .command("webhook")
    .description("the space's webhook endpoints and their delivery logs")
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform webhook list
  $ cubeform webhook deliveries https://hooks.example.com/cube
  $ cubeform webhook deliveries wh_0123abcd --limit 10 --format json

Endpoints are named by url or id. Declare them in the file's webhooks: to manage them.`,
    );

  addDay2Options(webhook.command("list").description("the space's webhook endpoints")).action(async (raw: unknown) => {
    const { runWebhookList } = await import("../actions/webhook.js");
    exitWith(await runWebhookList(context(raw, io), io));
  });

  addDay2Options(
    webhook
      .command("deliveries")
      .description("an endpoint's recent deliveries: status, attempts, last error (newest first, last 30 days)")
      .argument("<webhook>", "url or id")
      .option("--limit <n>", "how many (1-100)", "50"),
  ).action(async (ref: string, raw: unknown) => {
    const { runWebhookDeliveries } = await import("../actions/webhook.js");
    const { limit } = parseOptions(DeliveriesOptions, raw);
    exitWith(await runWebhookDeliveries({ ...context(raw, io), webhook: ref, limit }, io));
  });
  shareExamples(webhook);
}
