/** Resource addresses: "cube/web-1", "cube/web-1/domain/app.example.com", "cube/web-1/port/5432". */

/** `disambiguate` adds the id when one name stands for several cubes (distinct pinned ids). */
export function cubeAddress(name: string, id?: string | null, disambiguate = false): string {
  return disambiguate && id ? `cube/${name}[${id}]` : `cube/${name}`;
}

export function domainAddress(cubeAddr: string, hostname: string): string {
  return `${cubeAddr}/domain/${hostname}`;
}

export function portAddress(cubeAddr: string, cubePort: number): string {
  return `${cubeAddr}/port/${cubePort}`;
}

/** A webhook endpoint of the space: "webhook/https://hooks.example.com/cube". */
export function webhookAddress(url: string): string {
  return `webhook/${url}`;
}
