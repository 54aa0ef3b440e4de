/**
 * The ssh command line and known_hosts lines for a cube. The API's user, host, port and host keys are checked against their grammars first: a user
 * like `-oProxyCommand=…` or a host with a line break never reaches ssh's argv or known_hosts.
 */
import { isIP } from "node:net";
import type { CubeSshInfo } from "../schema/api.js";
import { CliError } from "./errors.js";
import { shellCommand } from "./render/escape.js";

export interface SshTarget {
  user: string;
  host: string;
  port: number;
  hostKeys: { type: string; key: string }[];
}

/** A POSIX login name (what useradd accepts): never starts with "-". */
const USER = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/;
/** A DNS label; "_" is allowed (the API names hosts after cube ids like cube_6c0f…). */
const LABEL = /^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$/;
const KEY_TYPES = new Set([
  "ssh-ed25519",
  "ssh-rsa",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "sk-ssh-ed25519@openssh.com",
  "sk-ecdsa-sha2-nistp256@openssh.com",
]);
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export const isSshUser = (user: string): boolean => USER.test(user);

export function isHost(host: string): boolean {
  if (isIP(host) !== 0) return true;
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  return name.length > 0 && name.length <= 253 && name.split(".").every((label) => LABEL.test(label));
}

/** An OpenSSH public key: a known type, and a base64 blob that starts with that same type. */
export function isHostKey(key: { type: string; key: string }): boolean {
  if (!KEY_TYPES.has(key.type) || !BASE64.test(key.key)) return false;
  const blob = Buffer.from(key.key, "base64");
  if (blob.length < 4) return false;
  const length = blob.readUInt32BE(0);
  return blob.subarray(4, 4 + length).toString("latin1") === key.type;
}

/** What is wrong with the API's answer, naming the field (not its value); undefined when it is usable. */
export function sshAnswerProblem(ssh: CubeSshInfo): string | undefined {
  if (!isSshUser(ssh.user)) return "its user is not a valid login name";
  if (ssh.host !== null && !isHost(ssh.host)) return "its host is neither a host name nor an IP address";
  if (!Number.isInteger(ssh.port) || ssh.port < 1 || ssh.port > 65535) return "its port is not between 1 and 65535";
  if (!ssh.hostKeys.every(isHostKey)) return "a host key is not an OpenSSH public key";
  return undefined;
}

/** The API's answer, checked; a CliError naming the cube and what is wrong otherwise. */
export function sshTarget(ssh: CubeSshInfo & { host: string }, cubeName: string): SshTarget {
  const problem = sshAnswerProblem(ssh);
  if (problem !== undefined) throw new CliError("bad_ssh_answer", `the API's ssh answer for cube "${cubeName}" is not used: ${problem}`);
  return { user: ssh.user, host: ssh.host, port: ssh.port, hostKeys: ssh.hostKeys };
}

/** ssh's arguments: options, then `--`, then the destination (and the remote command, if any). */
export function sshArgs(target: SshTarget, options: { knownHosts?: string; identity?: string } = {}): string[] {
  const pinning = options.knownHosts ? ["-o", `UserKnownHostsFile=${options.knownHosts}`, "-o", "StrictHostKeyChecking=yes"] : [];
  return [
    ...pinning,
    ...(options.identity ? ["-i", options.identity] : []),
    "-p",
    String(target.port),
    "--",
    `${target.user}@${target.host}`,
  ];
}

/** The command as a person pastes it into a shell. */
export const sshCommandLine = (target: SshTarget): string => shellCommand(["ssh", ...sshArgs(target)]);

export const knownHostsPattern = (target: SshTarget): string => `[${target.host}]:${target.port}`;

export const knownHostsLines = (target: SshTarget): string[] =>
  target.hostKeys.map((key) => `${knownHostsPattern(target)} ${key.type} ${key.key}`);
