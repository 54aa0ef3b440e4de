/**
 * The last line of defence for what the CLI prints: every secret the run knows (API key, password-like variables, values `${env:…}` resolved to,
 * webhook secrets) is replaced, and no control character from a name or an error body reaches the terminal (only cubeform's own sequences).
 */
import { Writable } from "node:stream";
import { MIN_SECRET_LENGTH, redactCredentialHeaders, redactorFor, urlCredentials, type Redactor } from "../system/redact.js";
import { whenDrained, type CliIo, type SecretSet } from "./io.js";

const SECRET_NAMES = /(^|_)(API_KEY|PASSWORD|PASSWD|SECRET|TOKEN)$/i;
/** The proxy settings the client honours (client/dispatcher.ts): their user and password are secrets. */
const PROXY_NAMES = /^(HTTPS?|ALL)_PROXY$/i;

/** The secret values of one run; commands add those they learn (resolved references, webhook secrets). Credential headers are redacted by name too. */
export class RunSecrets implements SecretSet {
  private values: string[] = [];
  redact: Redactor = redactCredentialHeaders;

  add(...values: (string | undefined)[]): void {
    const fresh = values.filter((v): v is string => v !== undefined && v.length >= MIN_SECRET_LENGTH && !this.values.includes(v));
    if (fresh.length === 0) return;
    this.values.push(...fresh);
    const byValue = redactorFor(...this.values);
    this.redact = (text) => redactCredentialHeaders(byValue(text));
  }
}

export function secretValues(env: CliIo["env"]): string[] {
  const named = Object.entries(env)
    .filter(([name, value]) => SECRET_NAMES.test(name) && value !== undefined && value.length >= MIN_SECRET_LENGTH)
    .map(([, value]) => value as string);
  const proxies = Object.entries(env).flatMap(([name, value]) =>
    PROXY_NAMES.test(name) && value !== undefined ? urlCredentials(value.trim()) : [],
  );
  return [...named, ...proxies];
}

/** The sequences cubeform writes itself (colors.ts, progress lines); any other control character is shown as an escape. */
const OWN_SEQUENCES =
  /\r\x1b\[2K|\x1b\[(?:1|2|22|31|32|33|39)m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function neutralizeControls(text: string): string {
  return text.replace(OWN_SEQUENCES, (match) => (match.length > 1 ? match : `\\u${match.charCodeAt(0).toString(16).padStart(4, "0")}`));
}

/**
 * A line the GitHub Actions runner would obey as a workflow command (`::error::…`, after blanks; the
 * runner ends a line at CR too): its first colon shown as an escape. cubeform writes workflow
 * commands on stdout only (--format github), so on stderr any such line came from a value.
 */
export function inertWorkflowCommands(): (text: string) => string {
  let atLineStart = true;
  return (text) => {
    const out = text.replace(/(^|[\n\r])([^\S\n\r]*)::/g, (match, start: string, blanks: string, offset: number) =>
      offset === 0 && start === "" && !atLineStart ? match : `${start}${blanks}\\u003a:`,
    );
    atLineStart = /[\n\r][^\S\n\r]*$/.test(text) || (atLineStart && /^[^\S\n\r]*$/.test(text));
    return out;
  };
}

function safeStream(
  target: NodeJS.WritableStream,
  secrets: SecretSet,
  commands: (text: string) => string = (text) => text,
): NodeJS.WritableStream {
  const stream = new Writable({
    // Strings stay strings: a plan's megabytes are not encoded to a Buffer only to be decoded here again.
    decodeStrings: false,
    write(chunk: Buffer | string, _encoding, callback) {
      const accepted = target.write(commands(neutralizeControls(secrets.redact(chunk.toString()))));
      // The target's backpressure is passed on: standard output to a pipe is asynchronous, and
      // text written faster than the reader takes it would pile up in the target's buffer.
      if (accepted === false && ((target as Partial<Writable>).writableLength ?? 0) > 0) whenDrained(target, () => callback());
      else callback();
    },
  });
  // Renderers decide on colors and widths from isTTY and columns: keep the target's.
  Object.defineProperty(stream, "isTTY", { value: (target as { isTTY?: boolean }).isTTY === true });
  Object.defineProperty(stream, "columns", { get: () => (target as { columns?: number }).columns });
  return stream;
}

export function redactingIo(io: CliIo): CliIo {
  const secrets: SecretSet = io.secrets ?? new RunSecrets();
  secrets.add(...secretValues(io.env));
  // Copied by descriptor: a stdin the bin opens only when read (a getter) stays unopened.
  const redacted = Object.defineProperties({}, Object.getOwnPropertyDescriptors(io)) as CliIo;
  return Object.assign(redacted, {
    secrets,
    stdout: safeStream(io.stdout, secrets),
    stderr: safeStream(io.stderr, secrets, inertWorkflowCommands()),
  });
}

/**
 * The values of the variables the files resolved (`envNames`: an image or a region from `${env:…}` is shown as [REDACTED] too) and of those their
 * passwords refer to are secrets of the run, whatever the variables are named.
 */
export function rememberLoadedSecrets(io: CliIo, loaded: { envNames: readonly string[]; secretEnvNames: readonly string[] }): void {
  io.secrets?.add(...[...loaded.envNames, ...loaded.secretEnvNames].map((name) => io.env[name]));
}
