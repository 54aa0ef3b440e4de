/**
 * Emulated servers: the reference's host-port pool (30000–50000) is per server, so cubes are placed on servers
 * of CUBES_PER_SERVER (the lowest-numbered with room), each with its own pool: 10,000 cubes with an SSH mapping
 * and two ports each fit. The server number is kept on the cube record; the pools are rebuilt from the mappings.
 */
import { HttpError } from "./http.js";

export const HOST_PORT_MIN = 30000;
export const HOST_PORT_MAX = 50000;
export const CUBES_PER_SERVER = 1000;

interface Server {
  cubes: number;
  usedPorts: Set<number>;
  /** Where the next port search starts: just after the last port handed out. */
  cursor: number;
}

const newServer = (): Server => ({ cubes: 0, usedPorts: new Set(), cursor: HOST_PORT_MIN });

function nextPort(port: number): number {
  return port >= HOST_PORT_MAX ? HOST_PORT_MIN : port + 1;
}

export class ServerPools {
  /** servers[n - 1] is server n. */
  private readonly servers: Server[] = [];

  /** Places a new cube: the lowest-numbered server with room (a new one when all are full). */
  assign(): number {
    let index = this.servers.findIndex((server) => server.cubes < CUBES_PER_SERVER);
    if (index < 0) index = this.servers.push(newServer()) - 1;
    this.server(index + 1).cubes++;
    return index + 1;
  }

  /** Counts a cube loaded from the state file on its recorded server. */
  place(serverNo: number): void {
    this.server(serverNo).cubes++;
  }

  release(serverNo: number): void {
    this.server(serverNo).cubes--;
  }

  /** A free host port of the server, the search starting after the last one handed out. */
  allocatePort(serverNo: number): number {
    const server = this.server(serverNo);
    if (server.usedPorts.size >= HOST_PORT_MAX - HOST_PORT_MIN + 1) throw new HttpError(503, "No ports available");
    let port = server.cursor;
    while (server.usedPorts.has(port)) port = nextPort(port);
    this.takePort(serverNo, port);
    return port;
  }

  /** Marks a port used; one outside the pool (an older state file may hold one) is never handed out: not tracked. */
  takePort(serverNo: number, port: number): void {
    if (port < HOST_PORT_MIN || port > HOST_PORT_MAX) return;
    const server = this.server(serverNo);
    server.usedPorts.add(port);
    server.cursor = nextPort(port);
  }

  freePort(serverNo: number, port: number): void {
    this.server(serverNo).usedPorts.delete(port);
  }

  private server(serverNo: number): Server {
    while (this.servers.length < serverNo) this.servers.push(newServer());
    return this.servers[serverNo - 1] as Server;
  }
}
