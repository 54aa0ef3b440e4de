/**
 * What a watch keeps of its last answers: a GET answered with exactly its last text hands out the last result again (the same
 * objects), neither parsed nor validated (a round re-reads 2,010 answers at 1,000 cubes, nearly all unchanged). An answer not
 * read in the next round is forgotten.
 */
export interface Remembered {
  text: string;
  /** The parsed JSON of `text`. */
  body: unknown;
}

export class ReadMemo {
  private current = new Map<string, Remembered>();
  private previous = new Map<string, Remembered>();
  /** The validated results of remembered bodies, per schema (a body object stands for its text). */
  private readonly validated = new WeakMap<object, { schema: unknown; output: unknown }>();

  /** The remembered answer of `target` when its text is `text` exactly. */
  same(target: string, text: string): Remembered | undefined {
    const last = this.current.get(target) ?? this.previous.get(target);
    if (last === undefined || last.text !== text) return undefined;
    this.current.set(target, last);
    return last;
  }

  remember(target: string, text: string, body: unknown): void {
    this.previous.delete(target);
    this.current.set(target, { text, body });
  }

  /** The result validated from `body` with `schema` before, if any. */
  validatedOutput(schema: unknown, body: unknown): { output: unknown } | undefined {
    if (typeof body !== "object" || body === null) return undefined;
    const hit = this.validated.get(body);
    return hit !== undefined && hit.schema === schema ? hit : undefined;
  }

  rememberValidated(schema: unknown, body: unknown, output: unknown): void {
    if (typeof body === "object" && body !== null) this.validated.set(body, { schema, output });
  }

  /** Starts a round: answers not read since the last call are forgotten at the next one. */
  nextRound(): void {
    this.previous = this.current;
    this.current = new Map();
  }
}
