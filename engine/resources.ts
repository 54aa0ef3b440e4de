/** Per-resource planning for the Pulumi provider: the same rules as the fleet diff, for one Cube, Domain or TcpMapping resource at a time. */
import type { Domain, TcpMapping } from "../client/api.js";
import { cubeAddress } from "./address.js";
import type { ResourcePlan } from "./change.js";
import { planCube } from "./cube-rules.js";
import { planDomain } from "./domain-rules.js";
import { planPort } from "./port-rules.js";
import type { DesiredCubeSpec, DesiredDomainSpec, DesiredPortSpec, ObservedCube } from "./types.js";

export type { ResourcePlan } from "./change.js";

export interface CubeResourceInput {
  /** Inputs of the last apply (Pulumi olds): sshPublicKey/userData changes are seen only here. */
  olds?: DesiredCubeSpec;
  news: DesiredCubeSpec;
  live?: ObservedCube;
  /** Defaults to news.lifecycle.allowReplace. */
  allowReplace?: boolean;
}

/** Domains and ports are separate Pulumi resources: the Cube resource never manages them. */
export function planCubeResource(input: CubeResourceInput): ResourcePlan {
  const news = withoutSubResources(input.news);
  const olds = input.olds && withoutSubResources(input.olds);
  const { change, steps } = planCube({
    address: cubeAddress(news.name),
    spec: news,
    live: input.live,
    olds,
    allowReplace: input.allowReplace ?? news.lifecycle.allowReplace,
  });
  return { change, steps };
}

function withoutSubResources(spec: DesiredCubeSpec): DesiredCubeSpec {
  const { domains: _domains, ports: _ports, ...rest } = spec;
  return rest;
}

/** A Domain or TcpMapping resource: the cube it belongs to, its inputs and the live object. */
interface SubResourceInput<Spec, Live> {
  cubeId: string;
  cubeName: string;
  news: Spec;
  live?: Live;
}

export type DomainResourceInput = SubResourceInput<DesiredDomainSpec, Domain> & {
  /** The password input changed since the last apply (the API never shows the password). */
  passwordChanged?: boolean;
};

export type PortResourceInput = SubResourceInput<DesiredPortSpec, TcpMapping>;

function ruleInput<Spec, Live>(input: SubResourceInput<Spec, Live>) {
  return {
    cubeAddress: cubeAddress(input.cubeName),
    cube: { cubeName: input.cubeName, cubeId: input.cubeId },
    spec: input.news,
    live: input.live,
  };
}

/** A hostname, port or cube change replaces the domain (detach, then attach: hostnames are unique). */
export function planDomainResource(input: DomainResourceInput): ResourcePlan {
  return planDomain({ ...ruleInput(input), passwordChanged: input.passwordChanged ?? false });
}

/** Any field change replaces the mapping (delete, then create: the cube port is unique). */
export function planPortResource(input: PortResourceInput): ResourcePlan {
  return planPort(ruleInput(input));
}
