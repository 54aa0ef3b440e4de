// Issue 23 item 7: a secret is redacted by value, also when an API message was cut short in its middle.
import { expect, test } from "vitest";
import { cutShort, redactorFor } from "../../system/redact.js";

const SECRET = "hunter2-correct-horse-battery";

test("a secret cut in two by a shortened message loses the part that is left, not only whole copies", () => {
  const redact = redactorFor(SECRET);
  const echoed = `rejected body: {"userData":"export DB_PASSWORD=${SECRET}"}`;
  const cut = cutShort(echoed, echoed.indexOf(SECRET) + 10);
  expect(cut).toContain("hunter2-co…");
  expect(redact(cut)).toBe('rejected body: {"userData":"export DB_PASSWORD=[REDACTED]…');
  // Embedded in a longer line (an error printed with what follows it), and whole copies still go.
  expect(redact(`Error: ${cut} (gave up); again ${SECRET}`)).toBe('Error: rejected body: {"userData":"export DB_PASSWORD=[REDACTED]… (gave up); again [REDACTED]');
});

test("text before a cut that is not the start of a secret stays", () => {
  const redact = redactorFor(SECRET);
  expect(redact(cutShort("a plain message that is long", 10))).toBe("a plain me…");
  expect(redact("hun…")).toBe("[REDACTED]…");
  expect(redact("hu…")).toBe("hu…");
});
