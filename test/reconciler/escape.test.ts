/** reconciler/render/escape.ts with the payloads of issue 23: one function per format. */
import { expect, test } from "vitest";
import {
  codeComment,
  escapeMarkdown,
  escapeText,
  githubData,
  githubInertLog,
  markdownCode,
  shellCommand,
  zoneName,
  zoneString,
} from "../../reconciler/render/escape.js";
import { inertWorkflowCommands, neutralizeControls } from "../../reconciler/redact.js";

const RETITLE_AND_CLEAR = "\u001b]0;pwned\u0007\u001b[2J\u001b[H";

test("text: control characters are shown, never sent (title, clear screen, line breaks, C1, bidi)", () => {
  expect(escapeText(`web${RETITLE_AND_CLEAR}\n\u009b2J\u202e`)).toBe("web\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[H\\n\\u009b2J\\u202e");
  expect(neutralizeControls(`\u001b[32mok\u001b[39m\r\u001b[2K${RETITLE_AND_CLEAR}\n`)).toBe(
    "\u001b[32mok\u001b[39m\r\u001b[2K\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[H\n",
  );
});

test("github: a message stays one line; the log between stop-commands and its token is inert", () => {
  expect(githubData("x\n::error::injected\r\n::add-mask::s 100%")).toBe("x\\n::error::injected\\r\\n::add-mask::s 100%25");
  expect(githubInertLog("::error::injected\n", "0123")).toBe("::stop-commands::0123\n::error::injected\n::0123::\n");
});

test("markdown: backticks, headings, images, HTML and table pipes are text", () => {
  const payload = "y\n```\n# Fake heading\n![img](https://attacker.example/i.png)<img src=x>|";
  const out = escapeMarkdown(payload);
  expect(out).not.toMatch(/\n|```|!\[|<img|(?<!\\)\|/);
  expect(markdownCode("a`b")).toBe("<code>a\\`b</code>");
});

test("markdown: a quote is an entity that still reads as the quote (its # is not escaped in turn)", () => {
  expect(escapeMarkdown(`it's "web" & <db>`)).toBe("it&#39;s &quot;web&quot; &amp; &lt;db&gt;");
});

test("issue 31 item 20: markdown escapes only what could start markup: prices, dates and paths read as written", () => {
  expect(escapeMarkdown("Cost: +34.16 EUR/month (fleet 9.49 → 43.65 EUR/month; 730 h/month)")).toBe(
    "Cost: +34.16 EUR/month (fleet 9.49 → 43.65 EUR/month; 730 h/month)",
  );
  expect(escapeMarkdown("ubuntu-24.04 in eu-nuremberg, 2026-11-28T10:00:00Z")).toBe("ubuntu-24.04 in eu-nuremberg, 2026-11-28T10:00:00Z");
  // What could still start markup stays text: line starts, autolinks, emphasis, links, tables.
  expect(escapeMarkdown("# title")).toBe("\\# title");
  expect(escapeMarkdown("- item")).toBe("\\- item");
  expect(escapeMarkdown("1. item")).toBe("1\\. item");
  expect(escapeMarkdown("see https://x.example, www.x.example, a@x.example")).toBe(
    "see https\\://x.example, www\\.x.example, a\\@x.example",
  );
  expect(escapeMarkdown("[a](b) *c* _d_ ~e~ f|g")).toBe("\\[a\\](b) \\*c\\* \\_d\\_ \\~e\\~ f\\|g");
});

test("shell: a printed command quotes what a shell would read as more than a word", () => {
  expect(shellCommand(["ssh", "-p", "22", "--", "u@h; touch /tmp/pwned"])).toBe("ssh -p 22 -- 'u@h; touch /tmp/pwned'");
});

test("zone file: a line break in a name or a TXT value starts no record", () => {
  expect(zoneName("www.example.com\nexample.com. 300 IN NS ns.attacker.")).not.toContain("\n");
  expect(zoneName("a b;c")).toBe("a\\032b\\059c");
  expect(zoneString('v"\\\n')).toBe('"v\\"\\\\\\010"');
});

test("TypeScript comments: no line break ends a // comment, no */ ends a block comment", () => {
  expect(codeComment('web\nrequire("fs").writeFileSync("p", "x") */ \u2028')).toBe(
    'web\\nrequire("fs").writeFileSync("p", "x") *\\/ \\u2028',
  );
});

test("stderr (issue 32 item 3): a line the Actions runner would obey as a workflow command is shown inert, across writes; `::` inside a line is kept", () => {
  const stderr = inertWorkflowCommands();
  const written = [
    "  ::error::a: creating\n",
    "::add-mask::",
    "x\n",
    "  ",
    "::warning::y\r::debug::z\n",
    "ip 2001:db8::1 ::not-a-command\n",
  ].map(stderr);
  expect(written.join("")).toBe(
    "  \\u003a:error::a: creating\n\\u003a:add-mask::x\n  \\u003a:warning::y\r\\u003a:debug::z\nip 2001:db8::1 ::not-a-command\n",
  );
});
