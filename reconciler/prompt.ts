/** Asking before a command changes or destroys something: yes/no on a terminal, a refusal naming the flag without one, an end on Ctrl-C/SIGTERM. */
import { createInterface } from "node:readline";
import { CliError } from "./errors.js";
import { isTty, type CliIo } from "./io.js";

export interface Confirmation {
  /** What is asked, without "(yes/no)": `Apply these 7 changes?`. */
  question: string;
  /** What is cancelled, for the messages: "apply", "snapshot restore". */
  what: string;
  /** Why a run without a terminal refuses, and the flag or way that skips the question. */
  withoutTerminal: string;
}

/** Returns when the answer is "yes"; throws a one-line CliError otherwise (130/143 on a signal). */
export async function confirm(c: Confirmation, io: CliIo, out: NodeJS.WritableStream): Promise<void> {
  if (io.stdin === undefined || !isTty(io.stdin)) throw new CliError("confirmation_required", c.withoutTerminal);
  const answer = await ask(`${c.question} (yes/no) `, io.stdin, out, io.signal);
  if (answer === STOPPED) {
    const signal = io.signal?.reason === "SIGTERM" ? "SIGTERM" : "SIGINT";
    throw new CliError("stopped", `${c.what} cancelled at the prompt (${signal}): nothing was changed`, signal === "SIGTERM" ? 143 : 130);
  }
  if (answer.trim().toLowerCase() !== "yes") throw new CliError("cancelled", `${c.what} cancelled: nothing was changed`);
}

export const STOPPED = Symbol("stopped");

/** The line typed in answer, or STOPPED when the run is asked to stop (Ctrl-C, SIGTERM) before one is. */
export function ask(
  question: string,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  signal: AbortSignal | undefined,
): Promise<string | typeof STOPPED> {
  output.write(question);
  const rl = createInterface({ input, terminal: false });
  return new Promise((resolveAnswer) => {
    const answer = (value: string | typeof STOPPED): void => {
      signal?.removeEventListener("abort", onStop);
      resolveAnswer(value);
      rl.close(); // emits "close" at once: the answer is settled by then
    };
    const onStop = (): void => answer(STOPPED);
    if (signal?.aborted) return onStop();
    signal?.addEventListener("abort", onStop, { once: true });
    rl.once("line", answer);
    rl.once("close", () => answer(""));
  });
}
