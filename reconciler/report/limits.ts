/** Limits only the API can judge: a space's caps can be raised on request, so going past a default cap is a warning, never an error. */
import type { DesiredState } from "../../engine/types.js";
import type { WarningKind } from "../../schema/desired.js";

export const DEFAULT_SPACE_CAPS = { vcpu: 16, ramGb: 32, diskGb: 100 } as const;

const UNITS = { vcpu: "vCPU", ramGb: "GB RAM", diskGb: "GB disk" } as const;
const KINDS = { vcpu: "vcpu-cap", ramGb: "ram-cap", diskGb: "disk-cap" } as const;

export interface LimitWarning {
  kind: WarningKind;
  /** The cube it is about; undefined for the fleet as a whole. */
  cubeName?: string;
  message: string;
}

export function capWarnings(desired: DesiredState): LimitWarning[] {
  const warnings: LimitWarning[] = [];
  const totals = { vcpu: 0, ramGb: 0, diskGb: 0 };
  const keys = Object.keys(DEFAULT_SPACE_CAPS) as (keyof typeof DEFAULT_SPACE_CAPS)[];
  for (const cube of desired.cubes) {
    for (const key of keys) {
      totals[key] += cube.resources[key];
      const cap = DEFAULT_SPACE_CAPS[key];
      if (cube.resources[key] > cap) {
        warnings.push({
          kind: KINDS[key],
          cubeName: cube.name,
          message: `cube "${cube.name}": resources.${key} ${cube.resources[key]} is above a space's default cap of ${cap} ${UNITS[key]}. ${API_JUDGES}`,
        });
      }
    }
  }
  for (const key of keys) {
    const cap = DEFAULT_SPACE_CAPS[key];
    if (totals[key] > cap && !warnings.some((w) => w.kind === KINDS[key])) {
      warnings.push({
        kind: KINDS[key],
        message: `the cubes together ask for ${totals[key]} ${UNITS[key]}, above a space's default cap of ${cap}. ${API_JUDGES}`,
      });
    }
  }
  return warnings;
}

const API_JUDGES =
  "Only the API knows your space's caps (they can be raised per space): if apply is refused, lower it or ask for a higher cap.";
