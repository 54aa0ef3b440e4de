/**
 * Issue 23 item 7, Pulumi errors: an API that refuses a body and echoes it reaches Pulumi with no
 * secret of the resource: a Cube's userData, and the values Fleet resolved into it from the
 * environment (the plugin shares it) even where the API cut the echo short; a Domain's basic-auth
 * password, also as the echoed JSON escapes it. Through the real plugin, behind a rewriting proxy.
 */
import { expect, it, onTestFinished } from "vitest";
import { rewritingProxy, type Exchange } from "../support/rewriting-proxy.js";
import { cubeInputs, startStack, type Kind, type Stack } from "./support/stack.js";

const JOIN = "join-7f3a9c2e51";
const LITERAL = "lit-0a9b8c7d6e";
const PASSWORD = 'pw"quote-123456';

/** Any POST that carries a secret is refused with its body echoed. */
const echoSecrets = (x: Exchange) =>
  x.method === "POST" && /userData|basicAuthPassword/.test(x.requestBody)
    ? { status: 400, body: { error: `rejected body: ${x.requestBody}` } }
    : undefined;

const failure = (stack: Stack, kind: Kind, name: string, inputs: Record<string, unknown>): Promise<string> =>
  stack.create(kind, name, inputs).then(
    () => "created",
    (error: Error) => error.message,
  );

it("issue 23 item 7: a rejected body echoed by the API: Cube and Domain errors carry no userData, resolved value or password", async () => {
  const stack = await startStack({ apiUrl: (emulator) => rewritingProxy(emulator, echoSecrets), env: { AGENT_JOIN: JOIN } });
  onTestFinished(() => stack.close());
  const web = await stack.create("Cube", "web", cubeInputs("web"));
  // Longer than the 500 characters of an API message the client keeps: the echo ends inside it.
  const resolved = `#cloud-config\nruncmd:\n  - agent --join ${JOIN}\n${"# keep the agent running\n".repeat(40)}`;
  const messages = [
    await failure(stack, "Cube", "job", cubeInputs("job", { userData: resolved })),
    await failure(stack, "Cube", "lit", cubeInputs("lit", { userData: `agent --token ${LITERAL}` })),
    await failure(stack, "Domain", "web", {
      cubeId: web.id,
      hostname: "web.example.com",
      port: 8080,
      basicAuthUser: "u",
      basicAuthPassword: PASSWORD,
    }),
  ];
  for (const message of messages) {
    expect(message).toContain("rejected body");
    expect(message).toContain("[REDACTED]");
    for (const secret of [JOIN, LITERAL, "quote-123456"]) expect(message).not.toContain(secret);
  }
});
