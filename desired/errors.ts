/** Problems of loading desired state: each with a stable `code` and the exit code the CLI maps it to. */
import { formatIssuePath } from "../schema/issue-path.js";
import type { SourceRevision } from "../engine/types.js";

/** A problem in a desired-state file, at a position a person can jump to. */
export interface FileProblem {
  file: string;
  /** 1-based; 0 when the position is unknown. */
  line: number;
  col: number;
  message: string;
  /** The input that solves it, for the front door to name (LoadInput). */
  input?: LoadInput;
}

export function formatProblem(p: FileProblem): string {
  return p.line > 0 ? `${p.file}:${p.line}:${p.col}: ${p.message}` : `${p.file}: ${p.message}`;
}

/**
 * The inputs of a load that a message may name. A library message names none of them: each front door gives them its own
 * names (the CLI its flags, the Pulumi Fleet its options), and the error is worded again with them (`inWords`).
 */
export type LoadInput = "file" | "stdin" | "repo" | "ref" | "path" | "secretsDir" | "allowedSigners" | "gitTimeout" | "gitToken";
export type InputNames = Partial<Record<LoadInput, string>>;
/** A message that may name the inputs (each name undefined where the caller has none for it). */
export type Wording = (names: InputNames) => string;

/** An error whose message a front door can word again with its own names for the inputs. */
export interface Worded {
  readonly wording: Wording;
}

/**
 * `error` worded with a front door's names for the inputs, in place (the error stays what it is): its message, and each of a
 * LoadError's problems that an input solves gets that input's name. Anything else as it is.
 */
export function inWords<T>(error: T, names: InputNames): T {
  if (error instanceof Error && typeof (error as Partial<Worded>).wording === "function")
    error.message = (error as unknown as Worded).wording(names);
  if (error instanceof LoadError) {
    for (const problem of error.problems) {
      const name = problem.input === undefined ? undefined : names[problem.input];
      if (name !== undefined) problem.message = `${problem.message} (${name})`;
      delete problem.input;
    }
  }
  return error;
}

/** What a source names cannot be read (no such file, a directory without YAML files, standard input twice). Retrying cannot fix it. */
export class SourceError extends Error implements Worded {
  readonly exitCode = 1;
  readonly terminal: boolean = true;
  constructor(
    readonly code: "file_unreadable" | "invalid_option" | "untrusted_commit",
    readonly wording: Wording,
  ) {
    super(wording({}));
    this.name = new.target.name;
  }
}

/** A commit refused by the allowed signers: the source names it (nothing of it was checked out). */
export class UntrustedCommitError extends SourceError {
  constructor(
    readonly commit: string,
    readonly signersFile: string,
    readonly why: string,
  ) {
    super(
      "untrusted_commit",
      (n) =>
        `commit ${commit.slice(0, 12)} is refused by ${n.allowedSigners ? `${n.allowedSigners} ` : "the allowed signers of "}${signersFile}: ${why}; nothing is applied until a commit signed by an allowed key`,
    );
  }
}

/** A desired-state file that a source names (or a directory holds) and that is not read: missing, not a regular file, too large. */
export class UnreadableFileError extends SourceError {
  constructor(
    readonly file: string,
    readonly reason: string,
    readonly missing = false,
  ) {
    super(
      "file_unreadable",
      (n) => `cannot read ${file}: ${reason}${missing && n.file ? ` (use ${n.file} to name the desired-state file)` : ""}`,
    );
  }
}

/** The document is valid YAML and matches the schema, but does not describe a usable fleet. */
export class DesiredStateError extends Error {
  readonly code = "invalid_desired_state";
  constructor(readonly issues: DesiredStateIssue[]) {
    super(issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`).join("\n"));
    this.name = new.target.name;
  }
}

export interface DesiredStateIssue {
  /** Path into the desired-state document, e.g. ["cubes", 2, "image"]. */
  path: (string | number)[];
  message: string;
  /** The input that solves it, for the front door to name (LoadInput). */
  input?: LoadInput;
}

/** Every problem found while loading the file; nothing was sent to the API. Retrying the same file cannot fix it. */
export class LoadError extends Error {
  readonly code = "invalid_file";
  readonly exitCode = 1;
  readonly terminal = true;
  readonly problems: FileProblem[];
  constructor(file: string, problems: FileProblem[]) {
    const n = problems.length;
    const verb = file.includes(", ") ? "are" : "is";
    super(`${visible(file)} ${verb} not valid (${n} problem${n === 1 ? "" : "s"}); nothing was sent to the API`);
    this.name = new.target.name;
    // In file order, so a reader can walk down each file (problems of unknown position first).
    const files = [...new Set(problems.map((p) => p.file))];
    this.problems = [...problems].sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file) || a.line - b.line || a.col - b.col);
  }
}

/** The problems of a fleet at a commit of a repository (--repo): which commit failed, for a script reading JSON. */
export class RepoLoadError extends LoadError {
  constructor(
    file: string,
    problems: FileProblem[],
    readonly source: SourceRevision,
  ) {
    super(file, problems);
  }
}

/** A place in a file (1-based). */
export interface Position {
  line: number;
  col: number;
  /** Set when several files were loaded: the one this position is in. */
  file?: string;
}

/**
 * What a terminal shows as nothing or as something else: controls (a form feed, a NUL), format characters (a zero-width space,
 * a bidi override), separators other than the space, and the code points Unicode says to ignore (a Hangul filler).
 */
const INVISIBLE = /[\p{C}\p{Z}\p{Default_Ignorable_Code_Point}]/u;
const SHORT_ESCAPES: Record<string, string> = { "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r" };

/** `text` with each invisible character written as an escape (\f, \u200B), so two keys that print alike can be told apart. */
export function visible(text: string): string {
  let shown = "";
  for (const char of text) shown += char !== " " && INVISIBLE.test(char) ? escapeOf(char) : char;
  return shown;
}

/** `"text"`, escaped like visible() and with its quotes and backslashes escaped. */
export function quoted(text: string): string {
  return `"${visible(text.replace(/[\\"]/g, (c) => `\\${c}`))}"`;
}

function escapeOf(char: string): string {
  const short = SHORT_ESCAPES[char];
  if (short !== undefined) return short;
  const hex = (char.codePointAt(0) as number).toString(16).toUpperCase();
  return hex.length <= 4 ? `\\u${hex.padStart(4, "0")}` : `\\u{${hex}}`;
}

/**
 * The repository could not be fetched or checked out (unreachable, no such ref, a timeout): the round fails, nothing is applied,
 * and the next round tries again; a source refused as written (a URL with credentials) is terminal.
 */
export class GitSourceError extends Error implements Worded {
  readonly code = "git_failed";
  readonly exitCode = 1;
  constructor(
    readonly wording: Wording,
    readonly terminal = false,
  ) {
    super(wording({}));
    this.name = new.target.name;
  }
}

/** A value of the file refused for want of an input (the secrets directory): the problem says which, for the front door to name. */
export class InputProblem extends Error {
  constructor(
    message: string,
    readonly input: LoadInput,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
