/**
 * The loop's memory of its last rounds, for /status and the status page: an observer of the watch loop (watch/events.ts) that keeps a bounded
 * summary of each round (never the plan itself: 100 rounds of a 10,000-cube fleet stay a few kilobytes) and, from the last plan, the drift, what
 * was repaired, the fleet's size and cost, and its groups. Everything is computed when a round ends, so a request for /status copies only.
 */
import type { Plan, ResourceChange } from "../../engine/index.js";
import { visibleChanges } from "../render/values.js";
import type { RoundEnd, RoundStart, RoundTrigger, WatchObserver } from "../watch/events.js";

/** Rounds kept (oldest dropped first). */
export const ROUNDS_KEPT = 100;
/** Changes listed of the drift and of the repairs (the totals count them all). */
export const CHANGES_LISTED = 100;

export interface RoundRecord {
  number: number;
  trigger: RoundTrigger;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  outcome: RoundEnd["outcome"];
  revision: string | null;
  /** Changes the round's plan found (before any apply). */
  drift: number;
  repaired: number;
  mutations: number;
  /** Why changes were held back: "budget", "policy"; null when none were. */
  held: "budget" | "policy" | null;
  /** The failure, redacted, on one line. */
  error: string | null;
}

export interface ChangeEntry {
  address: string;
  cube: string;
  /** The plan's action: create, update, delete, delete-then-create, create-then-delete. */
  action: string;
  /** The fields that differ (paths only, never values: a value may be a secret); [] for a create or a delete. */
  fields: string[];
  /** Why it cannot be made, when it cannot. */
  blocked: string | null;
}

export interface ChangeList {
  total: number;
  /** The first CHANGES_LISTED. */
  changes: ChangeEntry[];
}

export interface RepairStatus extends ChangeList {
  /** The last round that repaired something; null before one did. */
  round: number | null;
  at: string | null;
}

export interface FleetFacts {
  /** Live cubes of the space as the last plan saw them. */
  cubes: number | null;
  /** The fleet's monthly cost as it runs now, and after the file's changes. */
  cost: { perMonth: number; afterChanges: number; currency: string } | null;
  /** Why the cost is not known (the prices could not be read). */
  costUnknown: string | null;
  budget: { perMonth: number; over: boolean } | null;
}

export interface GroupFacts {
  name: string;
  replicas: number;
  live: number;
  /** Members the pending change replaces. */
  replacing: number;
  /** The rollout strategy's batches; null when the group has no rollout. */
  batches: number | null;
  warning: string | null;
}

export class RoundHistory implements WatchObserver {
  private readonly rounds: RoundRecord[] = [];
  private current: RoundStart | undefined;
  private drift: ChangeList = { total: 0, changes: [] };
  private repaired: RepairStatus = { round: null, at: null, total: 0, changes: [] };
  private fleet: FleetFacts = { cubes: null, cost: null, costUnknown: null, budget: null };
  private groups: GroupFacts[] = [];

  constructor(private readonly kept = ROUNDS_KEPT) {}

  roundStarted(event: RoundStart): void {
    this.current = event;
  }

  roundEnded(event: RoundEnd): void {
    this.current = undefined;
    this.rounds.push(recordOf(event));
    if (this.rounds.length > this.kept) this.rounds.splice(0, this.rounds.length - this.kept);
    if (event.outcome !== "succeeded" && event.outcome !== "failed") return;
    if (event.plan !== undefined) {
      this.drift = listOf(visibleChanges(event.plan));
      this.fleet = fleetOf(event.plan);
      this.groups = (event.plan.groups ?? []).map(groupOf);
    }
    if (event.repaired.length > 0)
      this.repaired = { round: event.round, at: new Date(event.finishedAt).toISOString(), ...listOf(event.repaired) };
  }

  /** Why round `number` ran: the one under way or the last one ended. */
  triggerOf(number: number): RoundTrigger | null {
    if (this.current?.round === number) return this.current.trigger;
    const last = this.rounds[this.rounds.length - 1];
    return last?.number === number ? last.trigger : null;
  }

  snapshot(): { rounds: RoundRecord[]; drift: ChangeList; repaired: RepairStatus; fleet: FleetFacts; groups: GroupFacts[] } {
    return { rounds: [...this.rounds], drift: this.drift, repaired: this.repaired, fleet: this.fleet, groups: this.groups };
  }
}

function recordOf(event: RoundEnd): RoundRecord {
  return {
    number: event.round,
    trigger: event.trigger,
    startedAt: new Date(event.startedAt).toISOString(),
    finishedAt: new Date(event.finishedAt).toISOString(),
    durationMs: Math.max(0, event.finishedAt - event.startedAt),
    outcome: event.outcome,
    revision: event.revision ?? null,
    drift: event.drift.length,
    repaired: event.repaired.length,
    mutations: event.mutations,
    held: event.held ?? null,
    error: event.error?.message ?? null,
  };
}

function listOf(changes: readonly ResourceChange[]): ChangeList {
  return { total: changes.length, changes: changes.slice(0, CHANGES_LISTED).map(entryOf) };
}

function entryOf(change: ResourceChange): ChangeEntry {
  const fields = change.action === "create" || change.action === "delete" ? [] : change.changes.map((field) => field.path);
  return { address: change.address, cube: change.cubeName, action: change.action, fields, blocked: change.blocked?.reason ?? null };
}

function fleetOf(plan: Plan): FleetFacts {
  const cubes = plan.changes.filter((change) => change.kind === "cube" && change.action !== "create").length;
  const cost = plan.cost;
  if (cost === undefined) return { cubes, cost: null, costUnknown: null, budget: null };
  if ("unknown" in cost)
    return {
      cubes,
      cost: null,
      costUnknown: cost.unknown,
      budget: cost.budget ? { perMonth: cost.budget.monthly, over: cost.blocked === true } : null,
    };
  return {
    cubes,
    cost: { perMonth: cost.before, afterChanges: cost.after, currency: cost.currency },
    costUnknown: null,
    budget: cost.budget ? { perMonth: cost.budget.monthly, over: cost.budget.over } : null,
  };
}

function groupOf(group: NonNullable<Plan["groups"]>[number]): GroupFacts {
  return {
    name: group.name,
    replicas: group.replicas,
    live: group.live,
    replacing: group.replacing,
    batches: group.rollout?.batches ?? null,
    warning: group.warning ?? null,
  };
}
