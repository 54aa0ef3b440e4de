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

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** For each generated line (0-based), the source line (0-based) of its first mapping. */
function sourceLines(mapPath: string): (number | undefined)[] {
  let mappings: string;
  try {
    mappings = (JSON.parse(readFileSync(mapPath, "utf8")) as { mappings: string }).mappings;
  } catch {
    return [];
  }
  const out: (number | undefined)[] = [];
  let srcLine = 0;
  for (const line of mappings.split(";")) {
    let first: number | undefined;
    for (const segment of line.split(",")) {
      if (!segment) continue;
      const values: number[] = [];
      let value = 0;
      let shift = 0;
      for (const ch of segment) {
        const digit = B64.indexOf(ch);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          values.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      if (values.length >= 4) {
        srcLine += values[2] ?? 0;
        first ??= srcLine;
      }
    }
    out.push(first);
  }
  return out;
}

const mapCache = new Map<string, (number | undefined)[]>();

function label(node: ProfileNode, root: string): string {
  const { functionName, url, lineNumber } = node.callFrame;
  let file = url.replace(/^file:\/\//, "");
  let line = lineNumber;
  // The transpiled copy in bench/.build: name the TypeScript source and line.
  if (file.includes("/bench/.build/dist/") && file.endsWith(".js")) {
    const map = mapCache.get(file) ?? sourceLines(`${file}.map`);
    mapCache.set(file, map);
    line = map[lineNumber] ?? lineNumber;
    file = file.replace(/\/bench\/\.build\/dist\//, "/").replace(/\.js$/, ".ts");
  }
  if (file.startsWith("/")) file = relative(root, file);
  return `${functionName || "(anonymous)"} (${file || "native"}${file ? `:${line + 1}` : ""})`;
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
      if (!url.includes("/bench/.build/dist/") && !(url.startsWith("file://") && !url.includes("node_modules") && !url.includes("/bench/")))
        continue;
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
