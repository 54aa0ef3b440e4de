import type { AddressInfo, Server, Socket } from "node:net";
import { onTestFinished } from "vitest";

/**
 * Listens on a free port of 127.0.0.1 until the current test finishes, then closes the server and
 * destroys the connections still open (kept-alive ones, tunnels, sockets it never answered).
 * Returns the server's origin, `http://127.0.0.1:PORT`.
 */
export async function listenUntilTestEnds(server: Server): Promise<string> {
  const open = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of open) socket.destroy();
    await closed;
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
