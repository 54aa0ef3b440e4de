/**
 * `cubeform login`: the API's device login, then the key is saved where the service's own CLI keeps it ($XDG_CONFIG_HOME/krova/config.json, 0600),
 * so later commands (and `krova`) need no variable. The key is never printed.
 */
import { createClient, createNetwork, DEFAULT_BASE_URL, deviceLogin } from "../../client/index.js";
import { saveContext } from "../session/credentials.js";
import { writeLine, type CliIo } from "../io.js";
import { escapeText } from "../render/escape.js";
import { printJson, type Day2Context } from "../session/day2.js";

export interface LoginContext {
  baseUrl?: string;
  context: string;
  format: Day2Context["format"];
}

export async function runLogin(ctx: LoginContext, io: CliIo): Promise<number> {
  const baseUrl = ctx.baseUrl ?? io.env.CUBE_API_URL?.trim() ?? io.env.KROVA_BASE_URL?.trim() ?? DEFAULT_BASE_URL;
  const network = createNetwork(io.env, { connections: 1 });
  const approved = await deviceLogin(baseUrl || DEFAULT_BASE_URL, {
    network,
    ...(io.signal ? { signal: io.signal } : {}),
    onCode: (started) => {
      writeLine(io.stderr, escapeText(`To log in, open ${started.verificationUriComplete}`));
      writeLine(
        io.stderr,
        escapeText(`and confirm the code ${started.userCode} (it expires in ${Math.round(started.expiresIn / 60)} minutes). Waiting…`),
      );
    },
  }).finally(() => network.dispatcher.close());
  const client = createClient({ baseUrl: baseUrl || DEFAULT_BASE_URL, apiKey: approved.apiKey, spaceId: approved.spaceId, env: io.env });
  // The name is a convenience; the key works without it.
  const spaceName = await client
    .getSpace()
    .then(
      (space) => space.name,
      () => null,
    )
    .finally(() => client.close());
  const path = saveContext(io.env, {
    name: ctx.context,
    apiKey: approved.apiKey,
    spaceId: approved.spaceId,
    spaceName,
    baseUrl: baseUrl || DEFAULT_BASE_URL,
  });
  if (ctx.format === "json") printJson(io, { context: ctx.context, spaceId: approved.spaceId, spaceName, baseUrl, configFile: path });
  else
    writeLine(
      io.stdout,
      escapeText(
        `Logged in to space ${spaceName ? `"${spaceName}" ` : ""}(${approved.spaceId}). Saved as context "${ctx.context}" in ${path}.`,
      ),
    );
  return 0;
}
