/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and ranks functions by self time, and by total
 * time (self + callees) for the functions of this repository, so a missed target names the
 * function and file where the time goes.
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface HotFunction {
  /** functionName (file:line), the file relative to the repository. */
  where: string;
  ms: number;
  percent: number;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  selfTop: HotFunction[];
  /** Inclusive time of the repository's own functions (not node_modules, not node:). */
  repoTotalTop: HotFunction[];
}

function label(node: ProfileNode, root: string): string {
  const { functionName, url, lineNumber } = node.callFrame;
  let file = url.replace(/^file:\/\//, "");
  if (file.startsWith("/")) file = relative(root, file);
  file = file.replace(/^bench\/\.build\/dist\//, "");
  return `${functionName || "(anonymous)"} (${file || "native"}${file ? `:${lineNumber + 1}` : ""})`;
}

export function summarizeProfile(path: string, root: string, top = 12): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const totalUs = profile.endTime - profile.startTime;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const name = node.callFrame.functionName;
    if (name === "(idle)") idleUs += us;
    const key = label(node, root);
    self.set(key, (self.get(key) ?? 0) + us);
    // Inclusive: each ancestor function once per sample stack (recursion counted once).
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur);
      if (!n) break;
      const url = n.callFrame.url;
      if (!url.includes("/bench/.build/dist/") && !(url.startsWith("file://") && !url.includes("node_modules") && !url.includes("/bench/"))) continue;
      const k = label(n, root);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + us);
    }
  }
  const rank = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([where, us]) => ({ where, ms: Math.round(us / 100) / 10, percent: Math.round((us / totalUs) * 1000) / 10 }));
  return { totalMs: Math.round(totalUs / 1000), idleMs: Math.round(idleUs / 1000), selfTop: rank(self), repoTotalTop: rank(inclusive) };
}
