// Public entry of lib/render: how a client shows the protocol's events as terminal rows: the transcript, Markdown
// with tables, a small syntax highlighter, approvals with their diffs, styles and display widths. No I/O.
export { alwaysScope, keepScope, rememberedText, revealControls } from "./approval_view.ts";
export { formatDelay, formatElapsed, formatTokens, retryText } from "./progress_text.ts";
export {
  colorEnabled,
  createStyle,
  displayWidth,
  type Paint,
  rowsFor,
  splitAtWidth,
  stripControls,
  type Style,
  tailAtWidth,
  truncateText,
  wrapPlain,
} from "./style.ts";
export { outputText, summarizeArguments } from "./tool_display.ts";
export { Transcript } from "./transcript.ts";
export { compactedLines, rewoundLines } from "./long_session_view.ts";
export { addUsage, formatUsage, formatUsageDetail, formatUsd, spendingLines } from "./usage_text.ts";
