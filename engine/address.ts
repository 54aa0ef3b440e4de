/** Resource addresses: "cube/web-1", "cube/web-1/domain/app.example.com", "cube/web-1/port/5432". */

/** `disambiguate` adds the id when one name stands for several cubes (distinct pinned ids). */
export const cubeAddress = (name: string, id?: string | null, disambiguate = false): string =>
  disambiguate && id ? `cube/${name}[${id}]` : `cube/${name}`;

export const domainAddress = (cubeAddr: string, hostname: string): string => `${cubeAddr}/domain/${hostname}`;

export const portAddress = (cubeAddr: string, cubePort: number): string => `${cubeAddr}/port/${cubePort}`;

/** A webhook endpoint of the space: "webhook/https://hooks.example.com/cube". */
export const webhookAddress = (url: string): string => `webhook/${url}`;
