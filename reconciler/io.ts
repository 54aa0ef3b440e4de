/** The streams and environment the CLI runs with: injected so tests run `main` in process. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** The bin opens it when first read (a getter): most commands never read it. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  /** Directory relative paths are resolved against; process.cwd() when absent. */
  cwd?: string;
  /** Aborted when the process is asked to stop (SIGINT/SIGTERM); long-running commands end cleanly. */
  signal?: AbortSignal;
  /** Which build of cubeform runs (the bundle's content hash): what it keeps on disk is for it alone. */
  build?: string;
  /** The secret values this run knows, redacted from everything it prints (redact.ts); commands add what they learn. */
  secrets?: SecretSet;
  /** The process ends when the command does (the bin, for every command but watch): what it holds is let go with it. */
  endsWithProcess?: boolean;
}

export interface SecretSet {
  add(...values: (string | undefined)[]): void;
  redact(text: string): string;
}

export function cwdOf(io: CliIo): string {
  return io.cwd ?? process.cwd();
}

export function isTty(stream: NodeJS.WritableStream | NodeJS.ReadableStream | undefined): boolean {
  return (stream as { isTTY?: boolean } | undefined)?.isTTY === true;
}

/** Colors on a terminal unless NO_COLOR is set; FORCE_COLOR (not "0" or "false") forces them anywhere. */
export function useColor(io: CliIo): boolean {
  const force = io.env.FORCE_COLOR;
  if (force !== undefined && force !== "0" && force !== "false") return true;
  return isTty(io.stdout) && io.env.NO_COLOR === undefined;
}

/** The columns text output is wrapped to: the terminal's width, 80 when not a terminal. */
export function outputWidth(stream: NodeJS.WritableStream): number {
  const columns = (stream as { columns?: number }).columns;
  return isTty(stream) && typeof columns === "number" && columns > 0 ? columns : 80;
}

export function writeLine(stream: NodeJS.WritableStream, text = ""): void {
  stream.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** Calls `then` once the stream drains, or can take no more (closed, failed: the bin's handlers decide what then). */
export function whenDrained(stream: NodeJS.WritableStream, then: () => void): void {
  const events = ["drain", "close", "error"];
  const done = (): void => {
    for (const event of events) stream.off(event, done);
    then();
  };
  for (const event of events) stream.on(event, done);
}
