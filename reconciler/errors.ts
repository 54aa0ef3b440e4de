/** Errors of the CLI. Each carries a stable `code` and the exit code it maps to; `main` prints the message as one line and never a stack trace. */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode = 1,
    /** Trying again cannot fix it (a watch waits for a change rather than retrying). */
    readonly terminal = false,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export { formatProblem, LoadError, type FileProblem } from "../desired/errors.js";

/** Anything thrown with a string `code`: our errors, the client's and the engine's typed errors. */
export function hasCode(e: unknown): e is Error & { code: string; exitCode?: number } {
  return e instanceof Error && typeof (e as { code?: unknown }).code === "string";
}

/**
 * Ends a command with a non-zero exit code that is not an error to report (e.g. 2: the plan
 * has changes). Whatever there was to say has been printed already.
 */
export class ExitCode extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
    this.name = "ExitCode";
  }
}
