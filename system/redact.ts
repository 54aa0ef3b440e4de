/** Secrets replaced by value in text: the client's key, the CLI's run secrets, the provider's secret inputs. */
export type Redactor = (text: string) => string;

/** The shortest value the CLI redacts (the provider's userData check too): redacting "1", "true" or "prod" everywhere protects nothing. */
export const MIN_SECRET_LENGTH = 6;

/** Each secret as written and as a JSON string holds it, once and twice (an API echoing the body escapes it; `--format json` again). */
export function redactorFor(...secrets: string[]): Redactor {
  const json = (text: string): string => JSON.stringify(text).slice(1, -1);
  const forms = [...new Set(secrets.filter((s) => s !== "").flatMap((s) => [s, json(s), json(json(s))]))].sort((a, b) => b.length - a.length);
  return (text) => cutSecrets(forms.reduce((out, form) => (out.includes(form) ? out.split(form).join("[REDACTED]") : out), text), forms);
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
