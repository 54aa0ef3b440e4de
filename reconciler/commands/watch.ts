import type { Command } from "commander";
import { resolve } from "node:path";
import * as z from "zod/mini";
import { CliError } from "../errors.js";
import { cwdOf, type CliIo } from "../io.js";
import { parseDuration } from "../../system/time.js";
import { addPlanFlagOptions, addSessionOptions, addStepWaitOptions, exitWith } from "./options.js";
import { parseOptions } from "../arguments/options.js";
import { PlanFlagOptions, SessionOptions, StepWaitOptions, stepWaits } from "../arguments/connect.js";
import { addPolicyOptions, PolicyOptions } from "./policy-options.js";
import { addNotifyOptions, NotifyOptions, notifySettings } from "./notify-options.js";
import { addStatusOptions, StatusOptions, takeStatusFlags } from "./status-options.js";

const WatchOptions = z.object({
  ...SessionOptions.shape,
  ...PlanFlagOptions.shape,
  policy: PolicyOptions.shape.policy,
  apply: z._default(z.boolean(), false),
  interval: z._default(z.string(), "60s"),
  once: z._default(z.boolean(), false),
  metricsPort: z.optional(z.coerce.number().check(z.int(), z.minimum(0), z.maximum(65535))),
  metricsHost: z._default(z.string().check(z.minLength(1)), "127.0.0.1"),
  ...StepWaitOptions.shape,
  listen: z.optional(z.string().check(z.minLength(1))),
  pushSecretFile: z.optional(z.string().check(z.minLength(1))),
  ...NotifyOptions.shape,
  ...StatusOptions.shape,
  statusAuthFile: z.optional(z.string().check(z.minLength(1))),
});

export function register(program: Command, io: CliIo): void {
  const command = program
    .command("watch")
    .description("keep the space matching the file: plan every interval, and apply with --apply (GitOps loop)");
  addStatusOptions(
    addNotifyOptions(addPolicyOptions(addPlanFlagOptions(addStepWaitOptions(addSessionOptions(command))), { overrides: false })),
  )
    .option("--apply", "apply the changes each round (without it: report drift only)", false)
    .option("--interval <duration>", "time between rounds (e.g. 30s, 5m, 1h; a bare number: seconds)", "60s")
    .option("--once", "run one round and exit (1 when it failed)", false)
    .option("--metrics-port <port>", "serve /metrics (Prometheus) and /healthz on this port (0: any free port)")
    .option("--metrics-host <address>", "address to serve them on", "127.0.0.1")
    .option(
      "--status-auth-file <path>",
      "with --metrics-port: the status page (/) and /status ask for the credentials in this file: USER:PASSWORD (basic auth) or a TOKEN (bearer); /metrics and the probes stay open",
    )
    .option(
      "--listen <address>",
      "receive the service's webhook deliveries on [HOST:]PORT and start a round as soon as a cube, domain or TCP-mapping event arrives (the interval stays the fallback)",
    )
    .option(
      "--push-secret-file <path>",
      "with --repo and --listen: the secret of the forge's push webhook (GitHub, GitLab, Gitea); a push to the watched ref starts a round at once",
    )
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform watch                                  # report drift every minute
  $ cubeform watch --apply --interval 5m --metrics-port 9464
  $ cubeform watch --apply --once                   # one round, e.g. from cron
  $ cubeform watch --apply --interval 10m --listen 0.0.0.0:4666   # repair on the service's events
  $ cubeform watch --apply --notify https://hooks.example.com/cubeform --notify-secret-file /run/secrets/notify
  $ cubeform watch --apply --repo https://github.com/acme/fleet.git --ref main --path fleet/ \
      --git-token-file /run/secrets/git-token --secrets-dir /var/lib/cubeform/secrets \
      --listen 0.0.0.0:4666 --push-secret-file /run/secrets/push-secret --metrics-port 9464

Each round re-reads the file, observes the space and plans. A file that does not load (or, with
--repo, a commit that does not, or a fetch that fails) is reported, and the round enforces the
last one that loaded, so out-of-band changes are still repaired. Failed rounds are retried with
exponential backoff (with jitter, capped at the interval; a round an event woke does not lengthen
it); a bad file or a refused request waits for the next interval. SIGTERM/SIGINT finish the step
under way and exit 0. A key the API refuses (401/403) before any round succeeded ends watch with
exit 1.

Probes (with --metrics-port): /livez is 200 while the loop runs; /readyz is 200 while rounds
finish (within the last 3 intervals, at least 30 s) and the last one that reached the API did not
fail there, 503 otherwise (with the reason); a failing source never makes it 503. /healthz is the
same as /readyz. /status is the loop's state as JSON: the source (revisions fetched, last good,
applied; its error), the space (converged, changes pending, cubes, cost), the last 100 rounds, the
drift and what was repaired, rollouts and pacing. / is the same as a web page (no external assets;
works with JavaScript off, refreshes itself with it on); \`cubeform status --url\` prints it in a
terminal. --status-auth-file puts / and /status behind basic auth or a bearer token.
With --listen, declare a webhooks entry in the file whose url reaches this address (the service
needs a public https url) and whose secretFile holds the signing secret: deliveries are checked
(X-Krova-Signature, 300 s tolerance), duplicates dropped, and unsigned ones refused with 401.

With --repo, each round fetches the ref (shallow, into ~/.cache/cubeform/git), loads its commit
and plans; a commit that does not load is never applied (the last good one is still enforced;
/status names the commit and FILE:LINE:COL). The revision is on each round's line, in /metrics
(cubeform_source_revision_info, cubeform_source_applied_revision_info, cubeform_source_failing),
in /status and in the /readyz body. With --listen and --push-secret-file, the same address takes
the forge's push webhook (GitHub X-Hub-Signature-256, GitLab X-Gitlab-Token, Gitea
X-Gitea-Signature); a push seen before (its delivery id or its body) starts nothing.

With --notify URL, events go to a webhook (JSON, or Slack's form with --notify-format slack):
drift.detected and drift.repaired once per drift (what differs, not when; a resource that keeps
drifting: one drift.flapping), apply.failed, rollout.reverted, source.broken (once per commit),
budget.blocked, policy.blocked. --notify-secret-file signs them (X-Cubeform-Signature). They are
queued and retried, never waited for by a round (cubeform_notifications_* in /metrics).

With --repo and --status-provider github|gitlab|gitea, each commit gets a status in the context
cubeform/<space>: pending when a round loads it, success when the space converged to it, failure
with the reason (a failed or held round, a blocked change, a commit that does not load), error when
a newer commit loads first; each once. The token comes from --status-token-file or
CUBEFORM_STATUS_TOKEN. Statuses are queued and retried; a forge that is down never holds a round.`,
    )
    .action(async (raw: unknown) => {
      const { runWatch } = await import("../actions/watch.js");
      const { sessionContext } = await import("../session/repo-source.js");
      const {
        interval,
        waitTimeout,
        pollInterval,
        listen,
        pushSecretFile,
        statusAuthFile,
        policy,
        notify,
        notifyFormat,
        notifySecretFile,
        ...options
      } = parseOptions(WatchOptions, raw);
      const { flags, rest: parsed } = takeStatusFlags(options);
      if (statusAuthFile !== undefined && parsed.metricsPort === undefined)
        throw new CliError("invalid_option", "--status-auth-file guards the status page of --metrics-port: add --metrics-port PORT");
      const { statusSettings } = await import("../commit-status/index.js");
      const { policyFlags } = await import("../session/policy.js");
      const { parseListenAddress } = await import("../watch/listener.js");
      const context = {
        ...(await sessionContext(parsed, raw, io)),
        intervalMs: parseDuration(interval, "--interval"),
        listen: listen === undefined ? undefined : parseListenAddress(listen),
        pushSecretFile: pushSecretFile === undefined ? undefined : resolve(cwdOf(io), pushSecretFile),
        statusAuthFile: statusAuthFile === undefined ? undefined : resolve(cwdOf(io), statusAuthFile),
        ...stepWaits({ waitTimeout, pollInterval }),
        cwd: cwdOf(io),
        policy: policyFlags({ policy }, io.env, cwdOf(io)),
        notify: await notifySettings({ notify, notifyFormat, notifySecretFile }, io),
        // bin/cubeform.js aborts it on SIGTERM/SIGINT; in process, callers pass their own.
        signal: io.signal ?? new AbortController().signal,
      };
      const commitStatus = statusSettings(flags, parsed.repo, cwdOf(io), io.env);
      exitWith(await runWatch(commitStatus ? { ...context, commitStatus } : context, io));
    });
}
