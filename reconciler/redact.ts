/**
 * A last line of defence for secrets: the CLI's output streams replace the API key and any
 * password-like environment value before the text reaches the terminal or a log.
 */
import { Writable } from "node:stream";
import { whenDrained, type CliIo } from "./io.js";

const SECRET_NAMES = /(^|_)(API_KEY|PASSWORD|PASSWD|SECRET|TOKEN)$/i;
/** Shorter values would redact ordinary words. */
const MIN_SECRET_LENGTH = 6;

export function secretValues(env: CliIo["env"]): string[] {
  return Object.entries(env)
    .filter(([name, value]) => SECRET_NAMES.test(name) && value !== undefined && value.length >= MIN_SECRET_LENGTH)
    .map(([, value]) => value as string)
    .sort((a, b) => b.length - a.length);
}

export function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => out.split(secret).join("[REDACTED]"), text);
}

function redactingStream(target: NodeJS.WritableStream, secrets: readonly string[]): NodeJS.WritableStream {
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      const accepted = target.write(redact(chunk.toString(), secrets));
      // The target's backpressure is passed on: standard output to a pipe is asynchronous, and
      // text written faster than the reader takes it would pile up in the target's buffer.
      if (accepted === false && ((target as Partial<Writable>).writableLength ?? 0) > 0) whenDrained(target, () => callback());
      else callback();
    },
  });
  // Renderers decide on colors from isTTY: keep the target's.
  Object.defineProperty(stream, "isTTY", { value: (target as { isTTY?: boolean }).isTTY === true });
  return stream;
}

export function redactingIo(io: CliIo): CliIo {
  const secrets = secretValues(io.env);
  if (secrets.length === 0) return io;
  // Copied by descriptor: a stdin the bin opens only when read (a getter) stays unopened.
  const redacted = Object.defineProperties({}, Object.getOwnPropertyDescriptors(io)) as CliIo;
  return Object.assign(redacted, { stdout: redactingStream(io.stdout, secrets), stderr: redactingStream(io.stderr, secrets) });
}
