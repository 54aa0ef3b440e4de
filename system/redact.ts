/** Secrets replaced by value in text: the client's key, the CLI's run secrets, the provider's secret inputs. */
export type Redactor = (text: string) => string;

/** The shortest value the CLI redacts (the provider's userData check too): redacting "1", "true" or "prod" everywhere protects nothing. */
export const MIN_SECRET_LENGTH = 6;

/** Each secret as written and as a JSON string holds it, once and twice (an API echoing the body escapes it; `--format json` again). */
export function redactorFor(...secrets: string[]): Redactor {
  const json = (text: string): string => JSON.stringify(text).slice(1, -1);
  const forms = [...new Set(secrets.filter((s) => s !== "").flatMap((s) => [s, json(s), json(json(s))]))].sort(
    (a, b) => b.length - a.length,
  );
  return (text) =>
    cutSecrets(
      forms.reduce((out, form) => (out.includes(form) ? out.split(form).join("[REDACTED]") : out), text),
      forms,
    );
}

/** Marks where a text was cut short (cutShort): the start of a secret may stand just before it. */
export const CUT = "…";

/** The first `max` characters of a text, marked when there were more. */
export function cutShort(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}${CUT}` : text;
}

/** A secret's first characters (3 or more) just before a cut are redacted: the rest of it was cut off. */
function cutSecrets(text: string, forms: readonly string[]): string {
  if (!text.includes(CUT)) return text;
  const parts = text.split(CUT);
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i]!;
    const prefix = Math.max(0, ...forms.map((form) => longestPrefixEnding(part, form)));
    if (prefix >= 3) parts[i] = `${part.slice(0, part.length - prefix)}[REDACTED]`;
  }
  return parts.join(CUT);
}

function longestPrefixEnding(text: string, form: string): number {
  for (let n = Math.min(form.length - 1, text.length); n >= 3; n--) if (text.endsWith(form.slice(0, n))) return n;
  return 0;
}

/** Headers whose value is a credential, whoever holds it: shown as [REDACTED] wherever the name is followed by its value. */
const CREDENTIAL_HEADERS =
  /(?<![\w-])(proxy-authorization|authorization|x-api-key|set-cookie|cookie)((?:\\*")?\s*[:=]\s*(?:\\*")?)[^"\\\r\n]+/gi;

/**
 * A credential header's value in an echoed request (`"proxy-authorization":"Basic …"`, a JSON
 * string of it, or a `Cookie: …` line), redacted by the header's name: its encoding is not
 * always one the run produced itself.
 */
export function redactCredentialHeaders(text: string): string {
  return text.replace(CREDENTIAL_HEADERS, (_match, name: string, separator: string) => `${name}${separator}[REDACTED]`);
}

/**
 * The user and password of a URL (`http://user:pass@proxy:3128`) in every form a request made
 * with it carries or a message could show: as written (URL-encoded), decoded, `user:pass`, and
 * the `Basic` header's base64 of it.
 */
export function urlCredentials(url: string): string[] {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`;
  if (!URL.canParse(withScheme)) return [];
  const parsed = new URL(withScheme);
  if (parsed.username === "" && parsed.password === "") return [];
  const decode = (part: string): string => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  };
  const [user, password] = [decode(parsed.username), decode(parsed.password)];
  const forms = [parsed.password, password, encodeURIComponent(password), `${parsed.username}:${parsed.password}`, `${user}:${password}`];
  const base64 = forms.slice(3).map((pair) => Buffer.from(pair, "utf8").toString("base64"));
  return [...new Set([...forms, ...base64])].filter((form) => form.length >= MIN_SECRET_LENGTH);
}
