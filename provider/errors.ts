/** Errors the provider hands to Pulumi. Messages never contain the API key (the client redacts it). */
import type { StepOutcome } from "../engine/index.js";
import { MIN_SECRET_LENGTH, redactorFor } from "../system/redact.js";

/** The resource exists but is not as desired: the plugin packs `id` and `properties` into ErrorResourceInitFailed, so Pulumi keeps it. */
export class ResourceInitFailed extends Error {
  readonly reasons: string[];
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ResourceInitFailed";
    this.reasons = [message];
  }
}

/** An engine step of the resource failed: its outcome, and the API's error code when it gave one. */
export class StepFailure extends Error {
  readonly code: string;
  constructor(readonly outcome: StepOutcome) {
    super(outcome.error?.message ?? `${outcome.step.op} failed`);
    this.name = "StepFailure";
    this.code = outcome.error?.code ?? "unknown";
  }
}

export function protectedCubeMessage(name: string, id: string, detail = ""): string {
  return `Cube "${name}" (id ${id}) has terminationProtection on; set terminationProtection: false on the resource and run pulumi up before deleting or replacing it.${detail}`;
}

/** Input and output names whose values are secrets: the API may echo them in an error body. */
const SECRET_PROPS = ["basicAuthPassword", "secret", "userData"];

/**
 * Runs `body`; an error it throws reaches Pulumi with the resource's secrets (password, webhook secret, userData) redacted by value, whatever the API wrote,
 * and so are the environment's values found in them (a Fleet resolved userData's `${env:…}` in the program; an API echoing a long userData cuts it short).
 */
export async function withSecretsRedacted<T>(props: (Record<string, unknown> | undefined)[], body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    const secrets = props
      .flatMap((p) => SECRET_PROPS.map((key) => p?.[key]))
      .filter((v): v is string => typeof v === "string" && v.length > 0);
    const resolved = Object.values(process.env).filter(
      (v): v is string => v !== undefined && v.length >= MIN_SECRET_LENGTH && secrets.some((s) => s.includes(v)),
    );
    if (error instanceof Error && secrets.length > 0) redactError(error, [...secrets, ...resolved]);
    throw error;
  }
}

function redactError(error: Error, secrets: string[]): void {
  const redact = redactorFor(...secrets);
  error.message = redact(error.message);
  if (error.stack) error.stack = redact(error.stack);
  if (error instanceof ResourceInitFailed) error.reasons.splice(0, error.reasons.length, ...error.reasons.map(redact));
}
