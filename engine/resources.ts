/**
 * Per-resource planning for the Pulumi provider: the same rules as the fleet diff, for one
 * Cube, Domain or TcpMapping resource at a time.
 */
import type { Domain, TcpMapping } from "../client/api.js";
import { cubeAddress } from "./address.js";
import { planCube } from "./cube-rules.js";
import { planDomain, type ResourcePlan } from "./domain-rules.js";
import { planPort } from "./port-rules.js";
import type { DesiredCubeSpec, DesiredDomainSpec, DesiredPortSpec, ObservedCube } from "./types.js";

export type { ResourcePlan } from "./domain-rules.js";

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
  const { domains: _domains, ports: _ports, ...news } = input.news;
  const olds = input.olds ? withoutSubResources(input.olds) : undefined;
  const plan = planCube({
    address: cubeAddress(news.name),
    spec: news,
    ...(input.live ? { live: input.live } : {}),
    ...(olds ? { olds } : {}),
    allowReplace: input.allowReplace ?? news.lifecycle.allowReplace,
  });
  return { change: plan.change, steps: plan.steps };
}

function withoutSubResources(spec: DesiredCubeSpec): DesiredCubeSpec {
  const { domains: _domains, ports: _ports, ...rest } = spec;
  return rest;
}

export interface DomainResourceInput {
  cubeId: string;
  cubeName: string;
  olds?: DesiredDomainSpec;
  news: DesiredDomainSpec;
  live?: Domain;
  /** The password input changed since the last apply (the API never shows the password). */
  passwordChanged?: boolean;
}

/** A hostname, port or cube change replaces the domain (detach, then attach: hostnames are unique). */
export function planDomainResource(input: DomainResourceInput): ResourcePlan {
  return planDomain({
    cubeAddress: cubeAddress(input.cubeName),
    cube: { cubeName: input.cubeName, cubeId: input.cubeId },
    spec: input.news,
    ...(input.live ? { live: input.live } : {}),
    passwordChanged: input.passwordChanged ?? false,
  });
}

export interface PortResourceInput {
  cubeId: string;
  cubeName: string;
  olds?: DesiredPortSpec;
  news: DesiredPortSpec;
  live?: TcpMapping;
}

/** Any field change replaces the mapping (delete, then create: the cube port is unique). */
export function planPortResource(input: PortResourceInput): ResourcePlan {
  return planPort({
    cubeAddress: cubeAddress(input.cubeName),
    cube: { cubeName: input.cubeName, cubeId: input.cubeId },
    spec: input.news,
    ...(input.live ? { live: input.live } : {}),
  });
}
