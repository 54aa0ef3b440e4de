/** A fake clock whose sleep advances time, so a pacer runs without real waiting. */
export function fakeClock() {
  let t = 0;
  const sleeps: number[] = [];
  return {
    now: () => t,
    // Time moves on only after pending grants have been observed (a macrotask later).
    sleep: async (ms: number) => {
      sleeps.push(ms);
      await new Promise((resolve) => setImmediate(resolve));
      t += ms;
    },
    advance: (ms: number) => void (t += ms),
    sleeps,
  };
}
