/**
 * A protected web cube, a custom domain in front of it and a published PostgreSQL port, plus
 * the workers of workers.yaml (a cubeform desired-state file) through the Fleet component.
 *
 *   pulumi config set --secret cubeform:apiKey <key>      # or export CUBE_API_KEY
 *   pulumi config set sshPublicKey "$(cat ~/.ssh/id_ed25519.pub)"
 *   pulumi config set --secret basicAuthPassword <password>
 *   pulumi config set adoptWebId cube_...                 # optional: adopt a live cube instead
 *   export CUBE_SSH_PUBLIC_KEY="$(cat ~/.ssh/id_ed25519.pub)"   # workers.yaml reads it
 *   pulumi up
 */
import * as pulumi from "@pulumi/pulumi";
import { Cube, Domain, Fleet, TcpMapping } from "cubeform/provider";

const config = new pulumi.Config();

const web = new Cube("web", {
  // A cube made outside Pulumi (the dashboard, `cubeform apply`) is taken over unchanged when its
  // id is set: `pulumi config set adoptWebId cube_...`. Without it, a new cube is created.
  adoptId: config.get("adoptWebId"),
  image: "ubuntu-24.04",
  region: "eu-nuremberg",
  resources: { vcpu: 2, ramGb: 4, diskGb: 40 },
  sshPublicKey: config.require("sshPublicKey"),
  // Refuses delete and replace until set to false (and applied) again.
  terminationProtection: true,
  sshPort: 2222,
});

const app = new Domain("app", {
  cubeId: web.cubeId,
  hostname: "app.example.com",
  port: 8080,
  originScheme: "http",
  responseCompression: true,
  basicAuthUser: "admin",
  basicAuthPassword: config.requireSecret("basicAuthPassword"),
});

const postgres = new TcpMapping("postgres", {
  cubeId: web.cubeId,
  cubePort: 5432,
  label: "postgres",
  udp: false,
  allow: ["203.0.113.0/24"],
});

// The rest of the fleet stays in the file `cubeform plan|apply -f workers.yaml` reads. Fleet loads
// it the same way (same checks with FILE:LINE:COL, defaults, ${env:} references) and registers a
// Cube, Domain, TcpMapping or Webhook child per entry. A cube there with a pinned `id` is adopted.
const workers = new Fleet("workers", { file: "workers.yaml" });

export const cubeId = web.cubeId;
export const workerCubeIds = pulumi.output(Object.fromEntries(Object.entries(workers.cubes).map(([name, cube]) => [name, cube.cubeId])));
export const sshCommand = pulumi.interpolate`ssh -p ${web.sshHostPort} ${web.sshUser}@${web.sshHost}`;
/** Publish these at your DNS provider (mustBeGrey: DNS-only, never proxied). */
export const dnsRecords = app.records;
export const postgresEndpoint = pulumi.interpolate`${postgres.host}:${postgres.hostPort}`;
