import { describe, expect, test } from "vitest";
import { clientConfigFromEnv, ConfigError, createClient, InsecureUrlError } from "../../client/index.js";

describe("clientConfigFromEnv", () => {
  test("reads CUBE_* with the default URL", () => {
    expect(clientConfigFromEnv({ CUBE_API_KEY: "kro_a" })).toEqual({ baseUrl: "https://krova.cloud/api/v1", apiKey: "kro_a" });
    expect(clientConfigFromEnv({ CUBE_API_KEY: "kro_a", CUBE_SPACE_ID: "sp", CUBE_API_URL: "http://127.0.0.1:9/api/v1" })).toEqual({
      baseUrl: "http://127.0.0.1:9/api/v1",
      apiKey: "kro_a",
      spaceId: "sp",
    });
  });

  test("falls back to the official CLI's KROVA_API_KEY, KROVA_SPACE_ID, KROVA_BASE_URL", () => {
    expect(clientConfigFromEnv({ KROVA_API_KEY: "kro_k", KROVA_SPACE_ID: "ks", KROVA_BASE_URL: "https://example.test/api/v1" })).toEqual({
      baseUrl: "https://example.test/api/v1",
      apiKey: "kro_k",
      spaceId: "ks",
    });
  });

  test("CUBE_* wins over KROVA_*; empty values count as unset", () => {
    const env = { CUBE_API_KEY: "kro_cube", KROVA_API_KEY: "kro_krova", CUBE_SPACE_ID: "", KROVA_SPACE_ID: "ks", CUBE_API_URL: " " };
    expect(clientConfigFromEnv(env)).toEqual({ baseUrl: "https://krova.cloud/api/v1", apiKey: "kro_cube", spaceId: "ks" });
  });

  test("a missing key is a ConfigError naming both variables", () => {
    const err = (() => {
      try {
        clientConfigFromEnv({ CUBE_API_KEY: "", KROVA_SPACE_ID: "s" });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({ code: "config" });
    expect(String(err)).toContain("CUBE_API_KEY");
    expect(String(err)).toContain("KROVA_API_KEY");
  });
});

describe("base URL safety", () => {
  test.each(["http://api.example.com/api/v1", "http://10.0.0.1/api/v1", "http://[::2]/api/v1", "http://127.example.com/api/v1"])(
    "plain http to %s is refused",
    (baseUrl) => {
      expect(() => createClient({ baseUrl, apiKey: "kro_x" })).toThrow(InsecureUrlError);
      try {
        createClient({ baseUrl, apiKey: "kro_x" });
      } catch (e) {
        expect(e).toMatchObject({ code: "insecure_url" });
      }
    },
  );

  test.each([
    "http://127.0.0.1:8080/api/v1",
    "http://127.1.2.3/api/v1",
    "http://localhost:1/api/v1",
    "http://[::1]:8/api/v1",
    "https://krova.cloud/api/v1",
  ])("%s is accepted", async (baseUrl) => {
    const client = createClient({ baseUrl, apiKey: "kro_x" });
    await client.close();
  });

  test("other schemes, credentials in the URL and an empty key are config errors", () => {
    expect(() => createClient({ baseUrl: "ftp://krova.cloud", apiKey: "k" })).toThrow(ConfigError);
    expect(() => createClient({ baseUrl: "https://u:p@krova.cloud/api/v1", apiKey: "k" })).toThrow(ConfigError);
    expect(() => createClient({ baseUrl: "not a url", apiKey: "k" })).toThrow(ConfigError);
    expect(() => createClient({ baseUrl: "https://krova.cloud/api/v1", apiKey: "" })).toThrow(ConfigError);
  });
});
