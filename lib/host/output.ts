// Runtime responses (host spec §3.3), with server-mode output truncation (host spec §9).
import type { ContentItem, Observation } from "../sandbox/index.ts";
import type { RuntimeResponse } from "./protocol.ts";
import { truncateItems } from "./truncation.ts";

export const DEFAULT_OUTPUT_BUDGET = 10_000;

export type OutputTruncation = "client" | "server";

/** A session's output mode (fixed at `session/open`). */
export interface OutputPolicy {
  mode: OutputTruncation;
}

/** Wall-clock ns since `start` (a `process.hrtime.bigint()` reading). */
export function elapsedNs(start: bigint): number {
  return Number(process.hrtime.bigint() - start);
}

function shapeItems(
  items: ContentItem[],
  errorText: string | null,
  policy: OutputPolicy,
  budget: number | null,
): ContentItem[] {
  if (policy.mode === "client") return items;
  const withError: ContentItem[] = errorText === null
    ? items
    : [...items, { type: "input_text", text: `Script error:\n${errorText}` }];
  return truncateItems(withError, budget ?? DEFAULT_OUTPUT_BUDGET);
}

export function runtimeResponse(
  observation: Observation,
  policy: OutputPolicy,
  budget: number | null,
  start: bigint,
): RuntimeResponse {
  switch (observation.kind) {
    case "yielded":
      return {
        Yielded: {
          cell_id: observation.cellId,
          content_items: shapeItems(observation.items, null, policy, budget),
          code_mode_host_duration_ns: elapsedNs(start),
        },
      };
    case "terminated":
      return {
        Terminated: {
          cell_id: observation.cellId,
          content_items: shapeItems(observation.items, null, policy, budget),
          code_mode_host_duration_ns: elapsedNs(start),
        },
      };
    case "result":
      return {
        Result: {
          cell_id: observation.cellId,
          content_items: shapeItems(observation.items, observation.errorText, policy, budget),
          error_text: observation.errorText,
          result_buffered_for_ns: Math.max(0, Math.round(observation.bufferedForNs)),
          code_mode_host_duration_ns: elapsedNs(start),
        },
      };
  }
}

/** The `Result` of a `MissingCell` outcome: no items, the error text, nothing buffered. */
export function missingCellResponse(
  cellId: string,
  errorText: string,
  policy: OutputPolicy,
  budget: number | null,
  start: bigint,
): RuntimeResponse {
  return {
    Result: {
      cell_id: cellId,
      content_items: shapeItems([], errorText, policy, budget),
      error_text: errorText,
      result_buffered_for_ns: 0,
      code_mode_host_duration_ns: elapsedNs(start),
    },
  };
}
