// THE frame codec shared by the server (NDJSON), the host (length-prefixed frames) and chat.
export {
  NdjsonDecoder,
  type NdjsonError,
  type NdjsonItem,
  type NdjsonReadOptions,
  readNdjson,
  readNdjsonBatches,
} from "./ndjson_reader.ts";
export { encodeLine, NdjsonWriter, waitForDrain } from "./ndjson_writer.ts";
export {
  decodeFrameMessage,
  encodeFrame,
  FrameDecoder,
  FrameError,
  type FrameReadOptions,
  frameTooLargeMessage,
  FrameWriter,
  MAX_FRAME_BYTES,
  parsePayload,
  type PayloadParser,
  readFrameBatches,
  readFrames,
} from "./frame.ts";
