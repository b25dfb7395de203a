// The agent loop: one turn (provider call, tool calls, approvals through the sink), history and the context budget.
export {
  DENIED_OUTPUT,
  NESTED_CANCELLED_OUTPUT,
  runTurn,
  type TurnInput,
  type TurnOutcome,
  type TurnSink,
} from "./turn.ts";
export { contextForWindow } from "./context_budget.ts";
export { compactableItems, compactHistory, type Compaction, SUMMARY_INSTRUCTIONS } from "./compaction.ts";
