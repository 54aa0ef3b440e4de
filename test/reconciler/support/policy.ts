/** Fleet and policy files for the policy tests (issue 36). */
export const SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGUyZS10ZXN0LWtleS1mb3ItY3ViZWZvcm0tY2xp policy@cubeform";

export const HEADER = `apiVersion: cubeform/v1
defaults:
  image: ubuntu-24.04
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }
  sshPublicKey: ${SSH_KEY}
`;

/** A policy file of these rules (YAML items, each starting "- name:"). */
export const policyFile = (...rules: string[]): string =>
  `apiVersion: cubeform/v1\nkind: Policy\nrules:\n${rules.map((r) => r.replace(/^/gm, "  ")).join("\n")}\n`;

export const NO_OPEN_PORTS = `- name: no-open-ports\n  enforcement: mandatory\n  match: { names: ["*"] }\n  deny: { portsOpenToInternet: true }`;
