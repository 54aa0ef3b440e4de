/** Secrets replaced by value in text: the client's key, the CLI's run secrets, the provider's secret inputs. */
export type Redactor = (text: string) => string;

/**
 * The shortest value the CLI redacts (and the provider looks for in userData): a resolved
 * `${env:…}` like "1", "true" or "prod" would turn every such word of the output into [REDACTED],
 * and a secret that short protects nothing.
 */
export const MIN_SECRET_LENGTH = 6;

/**
 * Each secret as written and as a JSON string holds it, once and twice (an API that echoes the
 * request body escapes a quote, a backslash or a line break; `--format json` escapes it again).
 */
export function redactorFor(...secrets: string[]): Redactor {
  const json = (text: string): string => JSON.stringify(text).slice(1, -1);
  const forms = [...new Set(secrets.filter((s) => s !== "").flatMap((s) => [s, json(s), json(json(s))]))].sort((a, b) => b.length - a.length);
  return (text) => forms.reduce((out, form) => (out.includes(form) ? out.split(form).join("[REDACTED]") : out), text);
}
