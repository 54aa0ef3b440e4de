/** Fleet and policy files for the policy tests (issue 36). */
export { DEFAULTS_HEADER as HEADER } from "./cli.js";

/** A policy violation as `plan -o json` lists it. */
export interface Violation {
  rule: string;
  enforcement: string;
  address: string;
  check: string;
  saw: string;
  fix: string;
}

/** A policy file of these rules (YAML items, each starting "- name:"). */
export const policyFile = (...rules: string[]): string =>
  `apiVersion: cubeform/v1\nkind: Policy\nrules:\n${rules.map((r) => r.replace(/^/gm, "  ")).join("\n")}\n`;

export const NO_OPEN_PORTS = `- name: no-open-ports\n  enforcement: mandatory\n  match: { names: ["*"] }\n  deny: { portsOpenToInternet: true }`;
