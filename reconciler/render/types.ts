import type { DnsRecordStatus } from "../../schema/api.js";
import type { Plan } from "../../engine/types.js";
import type { Position } from "../../desired/index.js";

/** What renderers may know beyond the plan: where things are in the file, and whether to color. */
export interface RenderContext {
  /** The desired-state file as the user named it. */
  file: string;
  cubePositions: Record<string, Position>;
  color: boolean;
  /** Columns the text output is wrapped to (the terminal's, else 80). */
  width?: number;
  /** The keys of a declared domain in the order the file writes them (its settings are shown in that order). */
  domainKeyOrder?: (cubeName: string, hostname: string) => string[] | undefined;
}

/** The DNS records of one declared, attached domain, as the service checked them. */
export interface DomainDnsCheck {
  address: string;
  cubeName: string;
  hostname: string;
  records: DnsRecordStatus[];
  complete: boolean;
  /** Set when the records could not be read at all. */
  error?: string;
}

export interface DriftReport {
  formatVersion: 1;
  plan: Plan;
  dns: DomainDnsCheck[];
}
