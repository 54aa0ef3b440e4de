/** `--notify-format slack`: an incoming-webhook body, `{text, blocks}` (Slack's documented shape; Mattermost and others take `text`). */
import type { NotifyEvent } from "./event.js";

const ICONS: Record<NotifyEvent["type"], string> = {
  "drift.detected": ":warning:",
  "drift.repaired": ":white_check_mark:",
  "drift.flapping": ":repeat:",
  "apply.failed": ":x:",
  "rollout.reverted": ":rewind:",
  "source.broken": ":no_entry:",
  "budget.blocked": ":moneybag:",
  "policy.blocked": ":no_entry_sign:",
  "policy.overridden": ":unlock:",
};

/** At most this many lines of detail: a Slack section's text is capped at 3,000 characters. */
const MAX_LINES = 15;
const MAX_TEXT = 2900;

export function slackBody(event: NotifyEvent): { text: string; blocks: unknown[] } {
  const head = `${ICONS[event.type]} *${escape(event.type)}* in space \`${escape(event.space ?? "unknown")}\`${event.revision ? ` at \`${event.revision.slice(0, 12)}\`` : ""}: ${escape(event.summary)}`;
  const lines = detailLines(event).map(escape);
  const shown = lines.slice(0, MAX_LINES);
  if (lines.length > shown.length) shown.push(`…and ${lines.length - shown.length} more`);
  const text = clip([head, ...shown.map((line) => `• ${line}`)].join("\n"));
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text } },
      {
        type: "context",
        elements: [{ type: "mrkdwn", text: escape(`cubeform ${event.command} · ${sourceLabel(event)} · ${event.time} · id ${event.id}`) }],
      },
    ],
  };
}

function detailLines(event: NotifyEvent): string[] {
  const details = event.details as {
    resources?: { address: string; action: string; fields?: { path: string }[]; by?: string }[];
    lines?: string[];
  };
  if (Array.isArray(details.lines)) return details.lines;
  return (details.resources ?? []).map(
    (r) =>
      `${r.address}: ${r.action}${r.fields?.length ? ` (${r.fields.map((f) => f.path).join(", ")})` : ""}${r.by === "outside" ? " (no longer differs)" : ""}`,
  );
}

function sourceLabel(event: NotifyEvent): string {
  return event.source.kind === "git" ? `${event.source.repo} ${event.source.ref}:${event.source.path}` : event.source.files.join(", ");
}

/** Slack's mrkdwn control characters, as its docs ask: &, <, >. */
const escape = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const clip = (text: string): string => (text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1)}…`);
