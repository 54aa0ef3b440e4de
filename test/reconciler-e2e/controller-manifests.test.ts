/**
 * The controller examples (examples/controller: a Kubernetes Deployment, a systemd unit, a
 * Dockerfile) say what the CLI does: every flag they pass is one `cubeform watch --help` lists,
 * the probes ask the paths and the port the CLI serves them on, the push port is the --listen one.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { parse } from "yaml";
import { startBin, tempDir } from "./support.js";

const dir = fileURLToPath(new URL("../../examples/controller/", import.meta.url));
const read = (name: string): string => readFileSync(`${dir}${name}`, "utf8");

async function watchFlags(): Promise<Set<string>> {
  const help = await startBin(["watch", "--help"], { cwd: tempDir(), env: {} }).exited;
  return new Set(help.stdout.match(/--[a-z][a-z-]*/g) ?? []);
}

const valueAfter = (args: readonly string[], flag: string): string | undefined => args[args.indexOf(flag) + 1];

interface Container {
  args: string[];
  ports: { containerPort: number }[];
  livenessProbe: { httpGet: { path: string; port: number } };
  readinessProbe: { httpGet: { path: string; port: number } };
}

test("the Deployment runs one replica with Recreate, flags watch knows, and probes on its metrics port", async () => {
  const flags = await watchFlags();
  const deployment = parse(read("deployment.yaml")) as {
    spec: {
      replicas: number;
      strategy: { type: string };
      template: { spec: { terminationGracePeriodSeconds: number; containers: Container[] } };
    };
  };
  expect(deployment.spec.replicas).toBe(1);
  expect(deployment.spec.strategy.type).toBe("Recreate");
  const pod = deployment.spec.template.spec;
  // A round may wait up to --wait-timeout (600 s by default) for a cube: SIGTERM lets it finish.
  expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(600);
  const [container] = pod.containers;
  const args = container!.args;
  expect(args[0]).toBe("watch");
  expect(args.filter((a) => a.startsWith("--")).filter((a) => !flags.has(a))).toEqual([]);
  const metricsPort = Number(valueAfter(args, "--metrics-port"));
  expect(valueAfter(args, "--metrics-host")).toBe("0.0.0.0");
  expect(container!.livenessProbe.httpGet).toEqual({ path: "/livez", port: metricsPort });
  expect(container!.readinessProbe.httpGet).toEqual({ path: "/readyz", port: metricsPort });
  const listenPort = Number(valueAfter(args, "--listen")?.split(":").pop());
  expect(container!.ports.map((p) => p.containerPort).sort()).toEqual([listenPort, metricsPort].sort());
});

test("the systemd unit and the Dockerfile pass only flags watch knows; the image has git", async () => {
  const flags = await watchFlags();
  const exec = /^ExecStart=(.*)$/m.exec(read("cubeform.service"))?.[1] ?? "";
  expect(exec).toContain("cubeform watch");
  expect((exec.match(/--[a-z][a-z-]*/g) ?? []).filter((f) => !flags.has(f))).toEqual([]);
  expect(read("cubeform.service")).toMatch(/^TimeoutStopSec=(6[0-9]{2}|[7-9][0-9]{2})$/m);
  const dockerfile = read("Dockerfile");
  expect(dockerfile).toMatch(/^FROM node:20/m);
  expect(dockerfile).toMatch(/apt-get install .*\bgit\b/);
  const cmd = JSON.parse(/^CMD (.*)$/m.exec(dockerfile)?.[1] ?? "[]") as string[];
  expect(cmd[0]).toBe("watch");
  expect(cmd.filter((a) => a.startsWith("--")).filter((a) => !flags.has(a))).toEqual([]);
});
