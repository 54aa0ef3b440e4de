/** Problems of loading desired state: each with a stable `code` and the exit code the CLI maps it to. */

/** A problem in a desired-state file, at a position a person can jump to. */
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

/** What -f names cannot be read (no such file, a directory without YAML files, stdin twice). */
export class SourceError extends Error {
  readonly exitCode = 1;
  constructor(
    readonly code: "file_unreadable" | "invalid_option",
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Every problem found while loading the file; nothing was sent to the API. */
export class LoadError extends Error {
  readonly code = "invalid_file";
  readonly exitCode = 1;
  readonly problems: FileProblem[];
  constructor(file: string, problems: FileProblem[]) {
    const n = problems.length;
    const verb = file.includes(", ") ? "are" : "is";
    super(`${file} ${verb} not valid (${n} problem${n === 1 ? "" : "s"}); nothing was sent to the API`);
    this.name = new.target.name;
    // In file order, so a reader can walk down each file (problems of unknown position first).
    const files = [...new Set(problems.map((p) => p.file))];
    this.problems = [...problems].sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file) || a.line - b.line || a.col - b.col);
  }
}

/** A place in a file (1-based). */
export interface Position {
  line: number;
  col: number;
  /** Set when several files were loaded: the one this position is in. */
  file?: string;
}

/** The repository could not be fetched or checked out (unreachable, no such ref, a timeout): the round fails, nothing is applied. */
export class GitSourceError extends Error {
  readonly code = "git_failed";
  readonly exitCode = 1;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
