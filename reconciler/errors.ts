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

/** A problem in the desired-state file, at a position a person can jump to. */
export interface FileProblem {
  file: string;
  /** 1-based; 0 when the position is unknown. */
  line: number;
  col: number;
  message: string;
}

export function formatProblem(p: FileProblem): string {
  return p.line > 0 ? `${p.file}:${p.line}:${p.col}: ${p.message}` : `${p.file}: ${p.message}`;
}

/** Every problem found while loading the file; nothing was sent to the API. */
export class LoadError extends CliError {
  readonly problems: FileProblem[];
  constructor(file: string, problems: FileProblem[]) {
    const n = problems.length;
    const verb = file.includes(", ") ? "are" : "is";
    super("invalid_file", `${file} ${verb} not valid (${n} problem${n === 1 ? "" : "s"}); nothing was sent to the API`);
    // In file order, so a reader can walk down each file (problems of unknown position first).
    const files = [...new Set(problems.map((p) => p.file))];
    this.problems = [...problems].sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file) || a.line - b.line || a.col - b.col);
  }
}

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
