/**
 * Escaping of every text from the API or a file that cubeform prints or writes, one function per target format: values are shown, never obeyed
 * (no terminal escape, workflow command, markup, shell word, zone-file record or code comment can be made by them).
 */
import { nodeCrypto } from "../../system/builtins.js";

/** C0 and C1 controls, DEL, line and paragraph separators, and the bidi overrides (they reorder what is shown). */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

const visible = (char: string): string => NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** Text for a terminal or a log: every control character shown as a JSON-style escape (`\u001b`, `\n`), so a value stays on its line and sends nothing to the terminal. */
export function escapeText(text: string): string {
  return text.replace(UNPRINTABLE, visible);
}

/** The message of a workflow command (`::warning ...::MESSAGE`): one line, as the runner reads it back. */
export function githubData(text: string): string {
  return escapeText(text).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A property of a workflow command (`file=...`). */
export function githubProperty(text: string): string {
  return githubData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/**
 * Log text between `::stop-commands::TOKEN` and `::TOKEN::`: the runner processes no workflow command in it (`::error::`, `::add-mask::`, …),
 * wherever a value lands in a line. The token is a digest of the text: the same plan prints the same, and no value can hold its own digest.
 */
export function githubInertLog(text: string, token = nodeCrypto().createHash("sha256").update(text).digest("hex").slice(0, 32)): string {
  return `::stop-commands::${token}\n${text}${text.endsWith("\n") ? "" : "\n"}::${token}::\n`;
}

const HTML: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * Markdown (GitHub-flavoured) text: HTML escaped, one line, and backslashes only where a character could start markup, so that
 * the raw text stays readable (`34.16`, `EUR/month (fleet`): emphasis, code, links and images (`[` `]`), tables, strikethrough,
 * autolinks (`http:/`, `www.`, `@`), and at the start a heading, a list or a rule (`<` and `>` are entities).
 */
export function escapeMarkdown(text: string): string {
  return inlineMarkdown(text, (line) => line.replace(/^(\s*)([#+\-=])/, "$1\\$2").replace(/^(\s*\d+)([.)])/, "$1\\$2"));
}

/** As escapeMarkdown, for text in the middle of a line: what only starts markup at a line's start (`4.75`, `- `) stays as it is. */
export function inlineMarkdown(text: string, atLineStart: (line: string) => string = (line) => line): string {
  // Entities last: their "#" must not be escaped in turn (`&\#39;` shows as text).
  return atLineStart(escapeText(text).replace(/[\\`*_[\]|~@]|:(?=\/)|(?<=\bwww)\./gi, (c) => `\\${c}`)).replace(
    /[&<>"']/g,
    (c) => HTML[c] as string,
  );
}

/** Code-styled markdown for a value (a backtick in it cannot end the span: none is used). */
export function markdownCode(text: string): string {
  return `<code>${escapeMarkdown(text)}</code>`;
}

/** One word for a POSIX shell: as is when it is plain, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./[\]-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export const shellCommand = (argv: readonly string[]): string => argv.map(shellWord).join(" ");

/**
 * A domain name or value for a zone file (RFC 1035 master format): every byte outside the plain
 * name characters as `\DDD`, so a value cannot end its record or start another.
 */
export function zoneName(text: string): string {
  return [...Buffer.from(text, "utf8")]
    .map((byte) => (/[A-Za-z0-9._*-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, "0")}`))
    .join("");
}

/** A zone-file character string (a TXT value): quoted, `"` and `\` escaped, unprintable bytes as `\DDD`. */
export function zoneString(text: string): string {
  const bytes = [...Buffer.from(text, "utf8")].map((byte) => {
    if (byte === 0x22 || byte === 0x5c) return `\\${String.fromCharCode(byte)}`;
    return byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, "0")}`;
  });
  return `"${bytes.join("")}"`;
}

/** Text inside a TypeScript `//` or `/* *\/` comment: on one line, and unable to close the comment. */
export function codeComment(text: string): string {
  return escapeText(text).replace(/\*\//g, "*\\/");
}
