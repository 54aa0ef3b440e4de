import type { CliIo } from "../io.js";
import { openForAppendNoFollow } from "../../system/files.js";

/** GitHub shows this file's markdown on the run's summary page. */
export async function appendStepSummary(io: CliIo, markdown: string): Promise<void> {
  const path = io.env.GITHUB_STEP_SUMMARY;
  if (!path) return;
  const file = await openForAppendNoFollow(path);
  try {
    await file.write(`${markdown}\n`, null, "utf8");
  } finally {
    await file.close();
  }
}
