/**
 * Errors of the CLI. Each carries a stable `code` and the exit code it maps to; `main` prints
 * the message as one line and never a stack trace.
 */
export class CliError extends Error {
  readonly code: string;
  readonly exitCode: number;
  constructor(code: string, message: string, exitCode = 1) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.exitCode = exitCode;
  }
}

export { formatProblem, LoadError, SourceError, type FileProblem } from "../desired/errors.js";

/** Anything thrown with a string `code`: our errors, the client's and the engine's typed errors. */
export function hasCode(e: unknown): e is Error & { code: string; exitCode?: number } {
  return e instanceof Error && typeof (e as { code?: unknown }).code === "string";
}

/**
 * Ends a command with a non-zero exit code that is not an error to report (e.g. 2: the plan
 * has changes). Whatever there was to say has been printed already.
 */
export class ExitCode extends Error {
  readonly exitCode: number;
  constructor(exitCode: number) {
    super(`exit ${exitCode}`);
    this.name = "ExitCode";
    this.exitCode = exitCode;
  }
}
