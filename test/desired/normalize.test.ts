import { describe, expect, test } from "vitest";
import { DesiredStateDocument } from "../../schema/desired.js";
import { DesiredStateError } from "../../desired/errors.js";
import { normalize } from "../../desired/normalize.js";
import { KEY } from "../engine/fixtures.js";

const files: Record<string, string> = { "keys/id.pub": `${KEY}\n`, "init.sh": "#!/bin/sh\necho hi\n" };
const readTextFile = (path: string): string => {
  const text = files[path];
  if (text === undefined) throw new Error(`ENOENT: no such file ${path}`);
  return text;
};

function parse(doc: unknown) {
  return DesiredStateDocument.parse(doc);
}

function issuesOf(doc: unknown) {
  try {
    normalize(parse(doc), { readTextFile });
  } catch (e) {
    expect(e).toBeInstanceOf(DesiredStateError);
    expect((e as DesiredStateError).code).toBe("invalid_desired_state");
    return (e as DesiredStateError).issues;
  }
  throw new Error("normalize did not throw");
}

const base = { apiVersion: "cubeform/v1" };
const resources = { vcpu: 1, ramGb: 2, diskGb: 20 };

describe("normalize", () => {
  test("merges defaults, reads files, maps ports and secret references", () => {
    const state = normalize(
      parse({
        ...base,
        space: "s1",
        defaults: { image: "ubuntu-24.04", resources, sshPublicKeyFile: "keys/id.pub", power: "running" },
        cubes: [
          {
            name: "web",
            userDataFile: "init.sh",
            terminationProtection: true,
            domains: [
              {
                hostname: "app.example.com",
                port: 8080,
                basicAuthUser: "admin",
                basicAuthPassword: "${env:WEB_PASS}",
                ipAllowList: ["10.0.0.0/8"],
              },
            ],
            ports: [{ cubePort: 5432, allow: ["1.2.3.4/32"], udp: false, label: "pg" }, { cubePort: 6379 }],
          },
          {
            name: "db",
            image: "debian-13",
            sshPublicKey: KEY,
            power: "stopped",
            lifecycle: { allowReplace: true, ignoreChanges: ["image"] },
          },
        ],
      }),
      { readTextFile },
    );
    expect(state.spaceId).toBe("s1");
    expect(state.prune).toBe(false);
    const [web, db] = state.cubes;
    expect(web).toEqual({
      name: "web",
      image: "ubuntu-24.04",
      resources,
      sshPublicKey: KEY,
      userData: "#!/bin/sh\necho hi\n",
      terminationProtection: true,
      power: "running",
      domains: [
        {
          hostname: "app.example.com",
          port: 8080,
          settings: { basicAuthUser: "admin", ipAllowList: ["10.0.0.0/8"] },
          basicAuthPassword: { env: "WEB_PASS" },
        },
      ],
      ports: [
        { cubePort: 5432, udp: false, allow: ["1.2.3.4/32"], label: "pg" },
        { cubePort: 6379, udp: true, allow: [] },
      ],
      lifecycle: { allowReplace: false, ignoreChanges: [] },
    });
    expect(db?.image).toBe("debian-13");
    expect(db?.power).toBe("stopped");
    expect(db?.sshPublicKey).toBe(KEY);
    expect(db?.lifecycle).toEqual({ allowReplace: true, ignoreChanges: ["image"] });
    expect(JSON.stringify(state)).not.toContain("${env");
  });

  test("reports every issue at once with paths into the document", () => {
    const issues = issuesOf({
      ...base,
      cubes: [
        { name: "a" },
        { name: "b", image: "x", resources, sshPublicKey: KEY, sshPublicKeyFile: "keys/id.pub" },
        { name: "c", image: "x", resources, sshPublicKeyFile: "missing.pub" },
        {
          name: "d",
          image: "x",
          resources,
          sshPublicKey: KEY,
          domains: [{ hostname: "a.example.com", port: 80, basicAuthUser: "admin", basicAuthPassword: "hunter2" }],
        },
      ],
    });
    expect(issues.map((i) => [i.path.join("."), i.message])).toMatchInlineSnapshot(`
      [
        [
          "cubes.0.image",
          "image is required (set it on the cube or in defaults)",
        ],
        [
          "cubes.0.resources",
          "resources are required (set them on the cube or in defaults)",
        ],
        [
          "cubes.0.sshPublicKey",
          "an SSH key is required: set sshPublicKey or sshPublicKeyFile on the cube or in defaults",
        ],
        [
          "cubes.1.sshPublicKeyFile",
          "set either sshPublicKey or sshPublicKeyFile, not both",
        ],
        [
          "cubes.2.sshPublicKeyFile",
          "cannot read missing.pub: ENOENT: no such file missing.pub",
        ],
        [
          "cubes.3.domains.0.basicAuthPassword",
          "basicAuthPassword must be an environment reference like \${env:BASIC_AUTH_PASSWORD}",
        ],
      ]
    `);
  });

  test("a cube's own key overrides the defaults' key file", () => {
    const state = normalize(
      parse({
        ...base,
        defaults: { image: "x", resources, sshPublicKeyFile: "keys/id.pub" },
        cubes: [{ name: "a", sshPublicKey: "ssh-rsa AAAA other" }],
      }),
      { readTextFile },
    );
    expect(state.cubes[0]?.sshPublicKey).toBe("ssh-rsa AAAA other");
  });

  test("duplicate names, hostnames and cube ports are errors; names with distinct ids are not", () => {
    const cubeBase = { image: "x", resources, sshPublicKey: KEY };
    const issues = issuesOf({
      ...base,
      cubes: [
        { name: "web", ...cubeBase, domains: [{ hostname: "a.example.com", port: 80 }] },
        { name: "web", ...cubeBase, domains: [{ hostname: "a.example.com", port: 81 }] },
        { name: "db", ...cubeBase, ports: [{ cubePort: 5432 }, { cubePort: 5432 }, { cubePort: 22 }] },
      ],
    });
    expect(issues.map((i) => i.path)).toEqual([
      ["cubes", 2, "ports", 1, "cubePort"],
      ["cubes", 2, "ports", 2, "cubePort"],
      ["cubes", 1, "name"],
      ["cubes", 1, "domains", 0, "hostname"],
    ]);
    const pinned = normalize(
      parse({
        ...base,
        cubes: [
          { name: "web", id: "c1", ...cubeBase },
          { name: "web", id: "c2", ...cubeBase },
        ],
      }),
      { readTextFile },
    );
    expect(pinned.cubes.map((c) => c.id)).toEqual(["c1", "c2"]);
  });

  test("a key that is not an OpenSSH public key is reported at its field", () => {
    const issues = issuesOf({ ...base, cubes: [{ name: "a", image: "x", resources, sshPublicKey: "not a key" }] });
    expect(issues[0]?.path).toEqual(["cubes", 0, "sshPublicKey"]);
  });
});
