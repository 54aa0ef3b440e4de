/**
 * Calls `look` every `everyMs` until stopped, or until it answers undefined (the thing watched is
 * gone): what someone watching would have seen, in order.
 */
export function pollUntilStopped<T>(look: () => Promise<T | undefined>, everyMs = 200): { stop(): Promise<T[]> } {
  const seen: T[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const now = await look();
      if (now === undefined) break;
      seen.push(now);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return seen;
    },
  };
}
