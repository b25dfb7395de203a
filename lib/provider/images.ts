// Images of user messages (turn attachments) for one request: the newest ones are read from disk as data URLs,
// the rest are named in the message text. Both wires build their image parts from `userContent`.
import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import path from "node:path";
import type { HistoryItem, ImageInput } from "./types.ts";

/** The largest image file sent inline (upstream's limit); a larger one is described instead. */
export const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
/** Image types both wires show the model. */
export const IMAGE_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];
/** Images one request shows, newest first; older ones are described. */
const MAX_REQUEST_IMAGES = 8;

/**
 * A copy of `history` whose user images carry a data URL (when `show` and among the newest eight) or the reason
 * they are only named, and how many are shown. The stored history is not changed.
 */
export async function withImageData(
  history: readonly HistoryItem[],
  show: boolean,
): Promise<{ history: HistoryItem[]; shown: number }> {
  let budget = show ? MAX_REQUEST_IMAGES : 0;
  const visible = new Set<number>();
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const item = history[index]!;
    if (item.kind !== "user" || !item.images?.length) continue;
    if (budget >= item.images.length) {
      budget -= item.images.length;
      visible.add(index);
    }
  }
  let shown = 0;
  const out: HistoryItem[] = [];
  for (const [index, item] of history.entries()) {
    if (item.kind !== "user" || !item.images?.length) {
      out.push(item);
      continue;
    }
    const images: ImageInput[] = [];
    for (const image of item.images) {
      if (!visible.has(index)) {
        images.push({ path: image.path, mime: image.mime, omitted: "not_shown" });
        continue;
      }
      const data_url = await readDataUrl(image);
      if (data_url === undefined) images.push({ path: image.path, mime: image.mime, omitted: "unreadable" });
      else {
        images.push({ path: image.path, mime: image.mime, data_url });
        shown += 1;
      }
    }
    out.push({ kind: "user", content: item.content, images });
  }
  return { history: out, shown };
}

/**
 * The file as a `data:` URL, or undefined when it is gone, no longer the checked file (its path now resolves
 * elsewhere, or is a symlink), not a regular file, too large, or of another type.
 */
async function readDataUrl(image: ImageInput): Promise<string | undefined> {
  if (!IMAGE_TYPES.includes(image.mime)) return undefined;
  let handle;
  try {
    if ((await realpath(image.path)) !== image.path) return undefined;
    handle = await open(image.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_IMAGE_BYTES) return undefined;
    const bytes = await handle.readFile();
    if (bytes.length > MAX_IMAGE_BYTES) return undefined;
    return `data:${image.mime};base64,${bytes.toString("base64")}`;
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/** The text of a user message with a note for each image it does not show, and the data URLs it does. */
export function userContent(item: { content: string; images?: ImageInput[] }): { text: string; urls: string[] } {
  let text = item.content;
  const urls: string[] = [];
  for (const image of item.images ?? []) {
    const name = path.basename(image.path);
    if (image.data_url !== undefined) urls.push(image.data_url);
    else if (image.omitted === "unreadable") text += `\n[image ${name}: could not be read]`;
    else text += `\n[image ${name}: not shown to you here]`;
  }
  return { text, urls };
}

/** Whether a provider error is about image input, such as a model without vision or an image it cannot read. */
export function rejectsImages(message: string): boolean {
  return /image/i.test(message) && !/HTTP (429|5\d\d)/.test(message);
}
