/**
 * Warnings from inside the dynamic-provider plugin, shown by `pulumi preview`/`up` as the engine's own: the engine starts the plugin with its
 * address (`pulumi-resource-pulumi-nodejs <engineAddr>`) and takes Engine.Log calls there, as a provider's host logging does. The gRPC stubs
 * are the plugin's own (@pulumi/pulumi's, one copy of grpc-js: the stubs check `instanceof`). When the engine cannot be reached, the warning
 * goes to the plugin's stderr, which the engine also shows.
 */
import { createRequire } from "node:module";

const WARNING = 2; // pulumirpc.LogSeverity.WARNING

interface EngineStubs {
  client: { log(req: unknown, callback: (err: Error | null) => void): void; close(): void };
  request(): { setSeverity(v: number): void; setMessage(v: string): void; setUrn(v: string): void };
}

let engine: EngineStubs | null | undefined;

function engineStubs(): EngineStubs | null {
  if (engine !== undefined) return engine;
  engine = null;
  const address = process.argv[2];
  const plugin = process.argv[1];
  if (address === undefined || plugin === undefined || !/^[\w.-]+:\d+$/.test(address)) return engine;
  try {
    const require = createRequire(plugin);
    const grpc = require("@grpc/grpc-js") as { credentials: { createInsecure(): unknown } };
    const services = require("@pulumi/pulumi/proto/engine_grpc_pb.js") as {
      EngineClient: new (address: string, credentials: unknown) => EngineStubs["client"];
    };
    const messages = require("@pulumi/pulumi/proto/engine_pb.js") as { LogRequest: new () => ReturnType<EngineStubs["request"]> };
    engine = { client: new services.EngineClient(address, grpc.credentials.createInsecure()), request: () => new messages.LogRequest() };
  } catch {
    engine = null;
  }
  return engine;
}

/** A warning about a resource (its URN when known), through the engine; never fails the call it is made from. */
export async function warnEngine(message: string, urn = ""): Promise<void> {
  const stubs = engineStubs();
  const sent =
    stubs !== null &&
    (await new Promise<boolean>((resolve) => {
      const req = stubs.request();
      req.setSeverity(WARNING);
      req.setMessage(message);
      req.setUrn(urn);
      stubs.client.log(req, (err) => resolve(err === null));
    }));
  if (!sent) process.stderr.write(`warning: ${message}\n`);
}
