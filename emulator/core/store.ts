/** The Store: holds the state and its indexes, and persists the state atomically as JSON. */
import { StateIndex } from "./indexes.js";
import { emptyState, type StateData } from "./state.js";
import { FileReadError, readRegularText, writeFileAtomicSync, type ReadLimit } from "../../system/files.js";

/** Coalesced writes: at most one per SAVE_DELAY_MIN_MS, nor sooner than 10× the last write's duration after it. */
const SAVE_DELAY_MIN_MS = 50;
const SAVE_DELAY_PER_WRITE_MS = 10;
const SAVE_DELAY_MAX_MS = 2_000;

/**
 * With a path, the state is persisted atomically (temp file + rename), not on every change: `save()` schedules
 * one write shortly after (writing takes at most ~10 % of the time), `flush()` writes at once. A write per
 * mutation was O(state) per request (megabytes per create at 10,000 cubes). Flushed on close and in the CLI on
 * SIGTERM/SIGINT and exit: only a crash (SIGKILL) loses the last moments' changes.
 */
export class Store {
  readonly data: StateData;
  readonly index: StateIndex;
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private clockNow = 0;
  private lastWriteMs = 0;

  constructor(private readonly path?: string) {
    this.data = path ? loadState(path) : emptyState();
    this.index = new StateIndex(this.data);
  }

  /** Marks the state changed at emulated time `clockNow`; the write follows shortly. */
  save(clockNow: number): void {
    if (!this.path) return;
    this.clockNow = clockNow;
    this.dirty = true;
    if (this.timer) return;
    const delay = Math.min(SAVE_DELAY_MAX_MS, Math.max(SAVE_DELAY_MIN_MS, this.lastWriteMs * SAVE_DELAY_PER_WRITE_MS));
    this.timer = setTimeout(() => this.flush(), delay);
  }

  /** Writes pending changes now (synchronously). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.path || !this.dirty) return;
    this.dirty = false;
    const started = performance.now();
    this.data.clockNow = this.clockNow;
    writeFileAtomicSync(this.path, JSON.stringify(this.data));
    this.lastWriteMs = performance.now() - started;
  }
}

/** The emulator's whole state as one JSON text: V8 holds at most ~512 MB in one string. */
const STATE_LIMIT: ReadLimit = { maxBytes: 500 * 1024 * 1024, what: "an emulator state file" };

function loadState(path: string): StateData {
  let text: string;
  try {
    text = readRegularText(path, STATE_LIMIT);
  } catch (error) {
    if (error instanceof FileReadError && error.refusal === "missing") return emptyState();
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<StateData>;
  if (parsed.version !== 1) throw new Error(`${path}: not an emulator state file (version ${String(parsed.version)})`);
  return { ...emptyState(), ...parsed } as StateData;
}
