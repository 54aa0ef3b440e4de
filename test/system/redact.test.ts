// Issue 23 item 7: a secret is redacted by value, also when an API message was cut short in its middle.
import { expect, test } from "vitest";
import { cutShort, redactCredentialHeaders, redactorFor, urlCredentials } from "../../system/redact.js";

const SECRET = "hunter2-correct-horse-battery";

test("a secret cut in two by a shortened message loses the part that is left, not only whole copies", () => {
  const redact = redactorFor(SECRET);
  const echoed = `rejected body: {"userData":"export DB_PASSWORD=${SECRET}"}`;
  const cut = cutShort(echoed, echoed.indexOf(SECRET) + 10);
  expect(cut).toContain("hunter2-co…");
  expect(redact(cut)).toBe('rejected body: {"userData":"export DB_PASSWORD=[REDACTED]…');
  // Embedded in a longer line (an error printed with what follows it), and whole copies still go.
  expect(redact(`Error: ${cut} (gave up); again ${SECRET}`)).toBe(
    'Error: rejected body: {"userData":"export DB_PASSWORD=[REDACTED]… (gave up); again [REDACTED]',
  );
});

test("text before a cut that is not the start of a secret stays", () => {
  const redact = redactorFor(SECRET);
  expect(redact(cutShort("a plain message that is long", 10))).toBe("a plain me…");
  expect(redact("hun…")).toBe("[REDACTED]…");
  expect(redact("hu…")).toBe("hu…");
});

test("issue 32 item 6: credential headers are redacted by name (JSON, a JSON string of it, header lines); a URL's credentials in every form", () => {
  const echoed = `{"proxy-authorization":"Basic b3BzOnB3","X-API-KEY": "kro_abc","cookie":"s=1; t=2"} "{\\"Authorization\\":\\"Bearer xyz\\"}"\nSet-Cookie: id=9; HttpOnly\nhost: api`;
  expect(redactCredentialHeaders(echoed)).toBe(
    `{"proxy-authorization":"[REDACTED]","X-API-KEY": "[REDACTED]","cookie":"[REDACTED]"} "{\\"Authorization\\":\\"[REDACTED]\\"}"\nSet-Cookie: [REDACTED]\nhost: api`,
  );
  expect(redactCredentialHeaders("Unauthorized: no key")).toBe("Unauthorized: no key");
  expect(urlCredentials("http://ops:pr0xy%20s3cret@proxy:3128").sort()).toEqual(
    [
      "pr0xy%20s3cret",
      "pr0xy s3cret",
      "ops:pr0xy%20s3cret",
      "ops:pr0xy s3cret",
      Buffer.from("ops:pr0xy%20s3cret").toString("base64"),
      Buffer.from("ops:pr0xy s3cret").toString("base64"),
    ].sort(),
  );
  expect(urlCredentials("proxy:3128")).toEqual([]);
});
