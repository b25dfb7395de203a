// THE frame codec shared by the server (NDJSON), the host (length-prefixed frames) and chat.
export { readNdjson, type NdjsonError, type NdjsonItem, type NdjsonReadOptions } from "./ndjson_reader.ts";
export { encodeLine, NdjsonWriter, waitForDrain } from "./ndjson_writer.ts";
export {
  decodeFrameMessage,
  encodeFrame,
  FrameError,
  frameTooLargeMessage,
  FrameWriter,
  MAX_FRAME_BYTES,
  parsePayload,
  readFrames,
} from "./frame.ts";
