// THE frame codec shared by the server (NDJSON), the host (length-prefixed frames) and chat.
export { NdjsonDecoder, readNdjson, readNdjsonBatches, type NdjsonError, type NdjsonItem, type NdjsonReadOptions } from "./ndjson_reader.ts";
export { encodeLine, NdjsonWriter, waitForDrain } from "./ndjson_writer.ts";
export {
  decodeFrameMessage,
  encodeFrame,
  FrameDecoder,
  FrameError,
  frameTooLargeMessage,
  FrameWriter,
  MAX_FRAME_BYTES,
  parsePayload,
  type FrameReadOptions,
  type PayloadParser,
  readFrameBatches,
  readFrames,
} from "./frame.ts";
