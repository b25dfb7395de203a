// An ACP prompt (content blocks) as what the engine takes: the prompt text and the turn's image attachments. scv
// accepts text, resource links (which every ACP agent must) and images (base64 data); audio and embedded resources
// are refused, since initialize does not offer them. An image is stored in the workspace, under
// `.scv/attachments/`, because the engine attaches files of the workspace and reads them again for each request.
import { randomUUID } from "node:crypto";
import { lstat, mkdir, realpath, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { type ContentBlock, RequestError } from "@agentclientprotocol/sdk";
import { imageAttachment } from "../client/index.ts";
import type { Attachment } from "../protocol/index.ts";
import { IMAGE_TYPES, MAX_IMAGE_BYTES } from "../provider/index.ts";
import { ATTACHMENT_MESSAGES, MAX_TURN_ATTACHMENTS } from "../embed/index.ts";
import { isInside } from "../util/path.ts";

/** Where a session's images are kept, relative to its workspace. */
export const IMAGE_DIRECTORY = path.join(".scv", "attachments");

const EXTENSIONS: Record<string, string> = {
  "image/png": ".png",
  "image/jpeg": ".jpg",
  "image/gif": ".gif",
  "image/webp": ".webp",
};
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

type ImageBlock = Extract<ContentBlock, { type: "image" }>;

export type PromptContent = {
  text: string;
  attachments: Attachment[];
  /** Removes the stored images again (the prompt was refused before the engine took it). */
  discard(): Promise<void>;
};

/** Reads `blocks`; throws `-32602` saying what is wrong (nothing is stored then). */
export async function promptContent(blocks: ContentBlock[], workspace: string): Promise<PromptContent> {
  const parts: string[] = [];
  const images: Array<{ block: ImageBlock; label: string; bytes: Buffer }> = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "resource_link":
        // The model reads the file itself: the link names it.
        parts.push(block.name && block.name !== block.uri ? `[${block.name}](${block.uri})` : block.uri);
        break;
      case "image": {
        const label = imageLabel(block, images.length + 1);
        images.push({ block, label, bytes: checkedImage(block, label) });
        break;
      }
      default:
        throw RequestError.invalidParams(
          { type: block.type },
          `scv accepts text, resource_link and image prompt content, not ${block.type}`,
        );
    }
  }
  if (images.length > MAX_TURN_ATTACHMENTS) throw RequestError.invalidParams(undefined, ATTACHMENT_MESSAGES.tooMany);
  const text = parts.join("\n");
  if (text.trim() === "" && images.length === 0) throw RequestError.invalidParams(undefined, "the prompt is empty");
  const stored: string[] = [];
  const discard = async () => {
    await Promise.all(stored.map((file) => rm(file, { force: true })));
  };
  const attachments: Attachment[] = [];
  try {
    const directory = images.length > 0 ? await imageDirectory(workspace) : "";
    for (const image of images) {
      const file = path.join(directory, `${randomUUID()}${EXTENSIONS[image.block.mimeType]}`);
      // `wx`: a new file (never through a planted symlink), readable by the user only.
      await writeFile(file, image.bytes, { flag: "wx", mode: 0o600 });
      stored.push(file);
      const attachment = await imageAttachment(file, workspace).catch(() => undefined);
      if (attachment === undefined || attachment.mime !== image.block.mimeType) {
        throw RequestError.invalidParams(
          { mimeType: image.block.mimeType },
          `${image.label} is not ${image.block.mimeType} data (its bytes are ${
            attachment?.mime ?? "not a PNG, JPEG, GIF or WebP image"
          })`,
        );
      }
      attachments.push({ ...attachment, name: image.label.replace(/^image /, "") });
    }
  } catch (error) {
    await discard();
    if (error instanceof RequestError) throw error;
    throw RequestError.internalError(undefined, `could not store the prompt's image: ${(error as Error).message}`);
  }
  return { text, attachments, discard };
}

/** `image shot.png` (from the block's uri) or `image 2` (its place among the prompt's images). */
function imageLabel(block: ImageBlock, index: number): string {
  const name = block.uri ? path.basename(block.uri.replace(/[?#].*$/, "")) : "";
  // deno-lint-ignore no-control-regex
  const clean = name.replace(/[\u0000-\u001f\u007f-\u009f]/g, "").slice(0, 200);
  return clean === "" ? `image ${index}` : `image ${clean}`;
}

/** The image's bytes, after the type and size rules the engine applies to attachments (docs/attachments.md). */
function checkedImage(block: ImageBlock, label: string): Buffer {
  if (!IMAGE_TYPES.includes(block.mimeType)) {
    throw RequestError.invalidParams(
      { mimeType: block.mimeType },
      `${label} has type ${JSON.stringify(block.mimeType)}; scv accepts images of type ${IMAGE_TYPES.join(", ")}`,
    );
  }
  const data = block.data.replace(/\s+/g, "");
  if (!BASE64.test(data) || data.length % 4 === 1)
    throw RequestError.invalidParams(undefined, `${label}: data is not base64`);
  // The decoded size, known before decoding: 3 bytes for every 4 characters, less the padding.
  const size = Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);
  if (size > MAX_IMAGE_BYTES) {
    throw RequestError.invalidParams(
      { size },
      `${label} is ${(size / (1024 * 1024)).toFixed(1)} MiB; an image may be at most ${
        MAX_IMAGE_BYTES / (1024 * 1024)
      } MiB`,
    );
  }
  if (size === 0) throw RequestError.invalidParams(undefined, `${label} has no data`);
  return Buffer.from(data, "base64");
}

/** `<workspace>/.scv/attachments`, created when missing; refused when it resolves outside the workspace. */
async function imageDirectory(workspace: string): Promise<string> {
  const outside = (directory: string) =>
    RequestError.invalidParams(
      undefined,
      `cannot store the prompt's image: ${directory} is a symlink or not a directory inside the workspace`,
    );
  // Each level is made here, never through a symlink a repository planted (`.scv -> /somewhere`).
  let directory = workspace;
  for (const part of IMAGE_DIRECTORY.split(path.sep)) {
    directory = path.join(directory, part);
    await mkdir(directory, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
    const info = await lstat(directory);
    if (info.isSymbolicLink() || !info.isDirectory()) throw outside(directory);
  }
  const real = await realpath(directory);
  if (!isInside(workspace, real)) throw outside(directory);
  return real;
}
