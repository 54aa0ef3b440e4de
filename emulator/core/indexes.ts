/**
 * In-memory indexes over the persisted id → record tables, so a request touches only its rows: cubes by space
 * (creation order, for paging), TCP mappings, domains and snapshots by cube, domains by hostname, the servers'
 * port pools. Rebuilt on load, never persisted. Every insert and delete goes through them (keeping tables and
 * indexes in step); records are otherwise changed in place.
 */
import { notFound } from "./http.js";
import { Queue } from "../../system/queue.js";
import { ServerPools } from "./servers.js";
import type { CubeRecord, DomainRecord, IdempotencyRecord, SnapshotRecord, StateData, TcpRecord } from "./state.js";

type Table<T> = Record<string, T>;
type ChildRow = { id: string; cubeId: string };

/** A record of `table`, never an inherited property (ids come from URLs). */
export function rowOf<T>(table: Table<T>, id: string): T | undefined {
  return Object.hasOwn(table, id) ? table[id] : undefined;
}

/** Adds `row` under `id` to the group `key` of `groups`. */
function addToGroup<T>(groups: Map<string, Map<string, T>>, key: string, id: string, row: T): void {
  let group = groups.get(key);
  if (!group) groups.set(key, (group = new Map()));
  group.set(id, row);
}

/** Rows of a table that belong to a cube, grouped by cube in insertion order. */
export class ChildTable<T extends ChildRow> {
  private readonly byCube = new Map<string, Map<string, T>>();

  constructor(protected readonly table: Table<T>) {
    for (const row of Object.values(table)) this.link(row);
  }

  get(id: string): T | undefined {
    return rowOf(this.table, id);
  }

  /** Inserts a row, or replaces the row of the same id (keeping its place). */
  put(row: T): void {
    const old = this.get(row.id);
    if (old) this.unlink(old);
    this.table[row.id] = row;
    this.link(row);
  }

  delete(row: T): void {
    delete this.table[row.id];
    this.unlink(row);
  }

  /** The row `id` when it belongs to the cube, else a 404 naming `what`. */
  requireOf(cubeId: string, id: string | undefined, what: string): T {
    const row = this.get(id ?? "");
    if (!row || row.cubeId !== cubeId) throw notFound(what);
    return row;
  }

  ofCube(cubeId: string): T[] {
    const rows = this.byCube.get(cubeId);
    return rows ? [...rows.values()] : [];
  }

  /** Whether a row of this cube passes the test (no copy of the cube's rows: a list page asks for each cube). */
  someOfCube(cubeId: string, test: (row: T) => boolean): boolean {
    for (const row of this.byCube.get(cubeId)?.values() ?? []) if (test(row)) return true;
    return false;
  }

  private link(row: T): void {
    addToGroup(this.byCube, row.cubeId, row.id, row);
  }

  private unlink(row: T): void {
    const rows = this.byCube.get(row.cubeId);
    rows?.delete(row.id);
    if (rows?.size === 0) this.byCube.delete(row.cubeId);
  }
}

/** Domains, also by hostname (a hostname is attached to at most one cube). */
export class DomainTable extends ChildTable<DomainRecord> {
  private readonly byName = new Map<string, DomainRecord>();

  constructor(table: Table<DomainRecord>) {
    super(table);
    for (const row of Object.values(table)) this.byName.set(row.domain, row);
  }

  byHostname(hostname: string): DomainRecord | undefined {
    return this.byName.get(hostname);
  }

  override put(row: DomainRecord): void {
    const old = this.get(row.id);
    if (old) this.byName.delete(old.domain);
    super.put(row);
    this.byName.set(row.domain, row);
  }

  override delete(row: DomainRecord): void {
    super.delete(row);
    if (this.byName.get(row.domain)?.id === row.id) this.byName.delete(row.domain);
  }
}

/** TCP mappings; their host ports are held in the pool of their cube's server. */
export class TcpTable extends ChildTable<TcpRecord> {
  constructor(
    table: Table<TcpRecord>,
    private readonly serverOf: (cubeId: string) => number | undefined,
    private readonly pools: ServerPools,
  ) {
    super(table);
    for (const row of Object.values(table)) this.holdPort(row);
  }

  override put(row: TcpRecord): void {
    super.put(row);
    this.holdPort(row);
  }

  override delete(row: TcpRecord): void {
    super.delete(row);
    const server = this.serverOf(row.cubeId);
    if (server !== undefined) this.pools.freePort(server, row.hostPort);
  }

  /** True when the cube has a mapping besides its SSH mapping. */
  hasPublicPort(cubeId: string): boolean {
    return this.someOfCube(cubeId, (m) => !m.isSsh);
  }

  private holdPort(row: TcpRecord): void {
    const server = this.serverOf(row.cubeId);
    if (server !== undefined) this.pools.takePort(server, row.hostPort);
  }
}

/** Cubes by space, in creation order (the order of GET …/cubes pages). */
export class CubeTable {
  private readonly bySpace = new Map<string, Map<string, CubeRecord>>();
  /** Per space, the cubes as an array for paging; dropped when a cube comes or goes. */
  private readonly ordered = new Map<string, CubeRecord[]>();

  constructor(
    private readonly table: Table<CubeRecord>,
    private readonly pools: ServerPools,
  ) {
    const cubes = Object.values(table);
    const placed = (cube: CubeRecord) => Number.isInteger(cube.server as unknown);
    for (const cube of cubes) if (placed(cube)) pools.place(cube.server);
    // Cubes of a state file written before servers existed are placed now, in creation order.
    for (const cube of cubes) if (!placed(cube)) cube.server = pools.assign();
    for (const cube of cubes) this.link(cube);
  }

  get(id: string): CubeRecord | undefined {
    return rowOf(this.table, id);
  }

  /** Inserts a new cube, placing it on a server. */
  insert(cube: Omit<CubeRecord, "server">): CubeRecord {
    const placed: CubeRecord = { ...cube, server: this.pools.assign() };
    this.table[placed.id] = placed;
    this.link(placed);
    return placed;
  }

  delete(cube: CubeRecord): void {
    delete this.table[cube.id];
    this.bySpace.get(cube.spaceId)?.delete(cube.id);
    this.ordered.delete(cube.spaceId);
    this.pools.release(cube.server);
  }

  count(spaceId: string): number {
    return this.bySpace.get(spaceId)?.size ?? 0;
  }

  /** `limit` cubes of the space from position `offset`. */
  page(spaceId: string, offset: number, limit: number): CubeRecord[] {
    let cubes = this.ordered.get(spaceId);
    if (!cubes) this.ordered.set(spaceId, (cubes = [...(this.bySpace.get(spaceId)?.values() ?? [])]));
    return cubes.slice(offset, offset + limit);
  }

  private link(cube: CubeRecord): void {
    addToGroup(this.bySpace, cube.spaceId, cube.id, cube);
    this.ordered.delete(cube.spaceId);
  }
}

/** Idempotency records in the order stored: at a non-decreasing emulated time, so the expired ones lead the queue. */
export class IdempotencyTable {
  private readonly queue: Queue<{ id: string; storedAt: number }>;

  constructor(private readonly table: Table<IdempotencyRecord>) {
    const entries = Object.entries(table).map(([id, record]) => ({ id, storedAt: record.storedAt }));
    this.queue = new Queue(entries.sort((a, b) => a.storedAt - b.storedAt));
  }

  get(id: string): IdempotencyRecord | undefined {
    return rowOf(this.table, id);
  }

  put(id: string, record: IdempotencyRecord): void {
    this.table[id] = record;
    this.queue.push({ id, storedAt: record.storedAt });
  }

  /** Deletes the records stored before `cutoff`. */
  deleteStoredBefore(cutoff: number): void {
    for (let entry = this.queue.first(); entry && entry.storedAt < cutoff; entry = this.queue.first()) {
      this.queue.shift();
      // A key stored again later has a newer record: only the record this entry stands for goes.
      if (this.get(entry.id)?.storedAt === entry.storedAt) delete this.table[entry.id];
    }
  }
}

export class StateIndex {
  readonly servers = new ServerPools();
  readonly cubes: CubeTable;
  readonly tcp: TcpTable;
  readonly domains: DomainTable;
  readonly snapshots: ChildTable<SnapshotRecord>;
  readonly idempotency: IdempotencyTable;

  constructor(data: StateData) {
    this.cubes = new CubeTable(data.cubes, this.servers);
    this.tcp = new TcpTable(data.tcpMappings, (cubeId) => this.cubes.get(cubeId)?.server, this.servers);
    this.domains = new DomainTable(data.domains);
    this.snapshots = new ChildTable(data.snapshots);
    this.idempotency = new IdempotencyTable(data.idempotency);
  }

  /** Deletes a cube and every row it holds (TCP mappings, freeing their ports; domains; snapshots). */
  deleteCube(cube: CubeRecord): void {
    for (const mapping of this.tcp.ofCube(cube.id)) this.tcp.delete(mapping);
    for (const domain of this.domains.ofCube(cube.id)) this.domains.delete(domain);
    for (const snapshot of this.snapshots.ofCube(cube.id)) this.snapshots.delete(snapshot);
    this.cubes.delete(cube);
  }
}
