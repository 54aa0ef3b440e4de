/** Typed engine errors: each has a stable `code` the CLI maps to a message and an exit code. */

export class EngineError extends Error {
  /** `terminal`: trying again cannot fix it (a watch waits for a change rather than retrying). */
  constructor(
    readonly code: string,
    message: string,
    readonly terminal = false,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A saved plan was computed from a state that has changed since. */
export class StalePlanError extends EngineError {
  constructor(readonly differences: string[]) {
    const shown = differences.slice(0, 5).join("; ");
    const more = differences.length > 5 ? ` (and ${differences.length - 5} more)` : "";
    super("stale_plan", `The plan is stale: the space changed since it was computed (${shown}${more}). Run plan again.`);
  }
}

export class WaitTimeoutError extends EngineError {
  constructor(
    message: string,
    readonly cubeId: string,
    readonly state: string,
  ) {
    super("wait_timeout", message);
  }
}

/** A cube reached state "error" while the engine waited for it to run. */
export class CubeErrorStateError extends EngineError {
  constructor(message: string) {
    super("cube_error", message);
  }
}

/** A step cannot be carried out as written (missing secret, unknown cube id, ...). */
export class StepError extends EngineError {}
