/**
 * Adoption: taking over a live cube, domain or TCP mapping (a dynamic provider cannot serve Pulumi's `import`: the plugin
 * gets the id only, no `__provider` to load, pulumi/pulumi#16175). The first create of a resource declaring `adoptId` plans
 * the live resource against the inputs and takes it over only when that plan is a no-op, else fails naming every differing
 * field, having changed nothing. check() drops `adoptId` once in state, so a later replacement creates a new resource.
 */
import type { FieldChange, ResourceChange } from "../engine/index.js";
import { PROVIDER_KEY } from "./check.js";
import type { Props } from "./values.js";

export const ADOPT_INPUT = "adoptId";

/** The id to adopt, when the inputs name one. */
export function adoptIdOf(props: Props): string | undefined {
  const value = props[ADOPT_INPUT];
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** check(): `olds` are the inputs recorded in the stack; once there, adoptId has done its job. */
export function withoutSpentAdoptId(olds: Props, inputs: Props): Props {
  const inState = Object.keys(olds).some((key) => key !== PROVIDER_KEY);
  if (!inState || !(ADOPT_INPUT in inputs)) return inputs;
  const { [ADOPT_INPUT]: _spent, ...rest } = inputs;
  return rest;
}

export class AdoptionMismatch extends Error {
  constructor(
    what: string,
    readonly differences: FieldChange[],
  ) {
    const lines = differences.map((change) => `  ${change.path}: live ${show(change.before)}, declared ${show(change.after)}`);
    super(
      `Cannot adopt ${what}: the live resource differs from the declared inputs, and nothing was changed.\n${lines.join("\n")}\n` +
        `Declare the live values (\`cubeform import --format pulumi\` writes them), change them after adoption, or remove adoptId to create a new one.`,
    );
    this.name = "AdoptionMismatch";
  }
}

export function adoptionNotFound(what: string, id: string): Error {
  return new Error(
    `Cannot adopt ${what}: no live resource has id ${id} in this space (nothing was changed). Check adoptId, or remove it to create a new one.`,
  );
}

/** Throws unless the engine's plan for the live resource is a no-op. */
export function requireNoop(what: string, change: ResourceChange, extra: FieldChange[] = []): void {
  const differences = [...extra, ...change.changes];
  if (change.action !== "noop" || differences.length > 0) throw new AdoptionMismatch(what, differences);
}

function show(value: unknown): string {
  return value === undefined ? "(not set)" : JSON.stringify(value);
}
