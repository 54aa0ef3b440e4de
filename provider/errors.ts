/** Errors the provider hands to Pulumi. Messages never contain the API key (the client redacts it). */
import { isCubeApiError } from "../client/index.js";
import type { StepOutcome } from "../engine/index.js";

/**
 * The resource exists but did not reach the desired state: the plugin packs `id` and
 * `properties` into ErrorResourceInitFailed, so Pulumi records the resource instead of losing it.
 */
export class ResourceInitFailed extends Error {
  readonly id: string;
  readonly properties: Record<string, unknown>;
  readonly reasons: string[];
  constructor(message: string, id: string, properties: Record<string, unknown>) {
    super(message);
    this.name = "ResourceInitFailed";
    this.id = id;
    this.properties = properties;
    this.reasons = [message];
  }
}

/** An engine step of the resource failed: its outcome, and the API's error code when it gave one. */
export class StepFailure extends Error {
  readonly code: string;
  readonly outcome: StepOutcome;
  constructor(outcome: StepOutcome) {
    super(outcome.error?.message ?? `${outcome.step.op} failed`);
    this.name = "StepFailure";
    this.code = outcome.error?.code ?? "unknown";
    this.outcome = outcome;
  }
}

export function errorCode(error: unknown): string | undefined {
  if (error instanceof StepFailure) return error.code;
  if (isCubeApiError(error)) return error.code;
  return undefined;
}

export const isNotFound = (error: unknown): boolean => errorCode(error) === "not_found";

export function protectedCubeMessage(name: string, id: string, detail = ""): string {
  return `Cube "${name}" (id ${id}) has terminationProtection on; set terminationProtection: false on the resource and run pulumi up before deleting or replacing it.${detail}`;
}
