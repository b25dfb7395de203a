// Files a client attaches to its turn (upstream's `turn.start.attachments`): checked when the turn is submitted,
// listed for the model in the prompt text, and shown as images when the provider takes image input.
import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import type { Attachment } from "../protocol/index.ts";
import { IMAGE_TYPES, type ImageInput, MAX_IMAGE_BYTES } from "../provider/index.ts";
import { isSecretLikePath } from "../policy/index.ts";
import { isInside } from "../util/path.ts";

export const MAX_TURN_ATTACHMENTS = 16;
const KINDS = ["image", "audio", "video", "file", "sticker"];
const MAX_NAME_CHARS = 200;
const MAX_TRANSCRIPT_CHARS = 4000;

export const ATTACHMENT_MESSAGES = {
  tooMany: `a turn may attach at most ${MAX_TURN_ATTACHMENTS} files`,
  notAbsolute: "attachment paths must be absolute",
  notRegular: "an attachment is not a regular file",
} as const;

/**
 * Why `attachments` are refused, or undefined. Upstream's rules (count, kind, an absolute path to a regular file
 * that is not a symlink), then ours: the file resolves inside the workspace, and its workspace path does not look
 * like a secret (a read of one needs approval, which an attachment never asks for). `anywhere`: the user's own
 * terminal attached it, so it may lie outside the workspace (its path still must not look like a secret).
 */
export async function attachmentError(
  attachments: readonly Attachment[],
  workspace: string,
  anywhere = false,
): Promise<string | undefined> {
  if (attachments.length > MAX_TURN_ATTACHMENTS) return ATTACHMENT_MESSAGES.tooMany;
  for (const attachment of attachments) {
    if (!KINDS.includes(attachment.kind)) return `unknown attachment kind ${JSON.stringify(attachment.kind)}`;
    if (!path.isAbsolute(attachment.path) || attachment.path.includes("\0")) return ATTACHMENT_MESSAGES.notAbsolute;
    const info = await lstat(attachment.path).catch(() => undefined);
    if (!info?.isFile()) return ATTACHMENT_MESSAGES.notRegular;
    const real = await realpath(attachment.path).catch(() => undefined);
    if (real === undefined) return ATTACHMENT_MESSAGES.notRegular;
    if (!isInside(workspace, real) || real === workspace) {
      if (!anywhere) {
        return `attach ${attachment.path}: resolves outside the workspace; path must remain within workspace`;
      }
      if (isSecretLikePath(real) || isSecretLikePath(path.normalize(attachment.path))) {
        return `attach ${attachment.path}: the path looks like it holds credentials and cannot be attached`;
      }
      continue;
    }
    // Both spellings, as the file tools judge them: a symlinked name can hide a secret target and the other way round.
    if (
      isSecretLikePath(path.relative(workspace, real)) ||
      isSecretLikePath(path.relative(workspace, path.normalize(attachment.path)))
    ) {
      return `attach ${attachment.path}: the path looks like it holds credentials and cannot be attached`;
    }
  }
  return undefined;
}

/**
 * The model's input for `prompt` with `attachments`: the text, a list of the files, and the images. A session with
 * tools sees the path of each file inside `workspace` so it can open it; one without sees names only, and so does
 * every session for a file the user attached from outside the workspace (no tool could open it). Images are read
 * from their real paths, which a later swap of a symlinked directory cannot redirect.
 */
export async function turnInput(
  prompt: string,
  attachments: readonly Attachment[],
  tools: boolean,
  workspace: string,
): Promise<{ text: string; images: ImageInput[] }> {
  if (attachments.length === 0) return { text: prompt, images: [] };
  let text = prompt.trimEnd();
  if (text !== "") text += "\n\n";
  text += "[The user attached:]";
  const images: ImageInput[] = [];
  for (const attachment of attachments) {
    const mime = attachment.mime ?? "";
    text += `\n- ${describe(attachment)}`;
    if (tools && isInside(workspace, path.normalize(attachment.path))) text += ` at ${attachment.path}`;
    const transcript = attachment.transcript?.trim();
    if (transcript) text += `; it says: "${bounded(transcript, MAX_TRANSCRIPT_CHARS)}"`;
    if (attachment.kind === "image" && IMAGE_TYPES.includes(mime) && attachment.size <= MAX_IMAGE_BYTES) {
      const real = await realpath(attachment.path).catch(() => attachment.path);
      images.push({ path: real, mime });
    }
  }
  if (
    tools &&
    attachments.some((attachment) => attachment.kind !== "image" || !IMAGE_TYPES.includes(attachment.mime ?? ""))
  ) {
    text += "\nOpen files you cannot read directly with a tool, or hand them to an agent that can.";
  }
  return { text, images };
}

/** `image photo.jpg (image/jpeg, 120 KB)`. */
function describe(attachment: Attachment): string {
  const kind = attachment.kind === "audio" ? "voice or audio" : attachment.kind;
  const name = bounded((attachment.name ?? "").trim(), MAX_NAME_CHARS);
  const details = [...(attachment.mime ? [attachment.mime] : []), size(attachment.size)].join(", ");
  return name === "" ? `${kind} (${details})` : `${kind} ${name} (${details})`;
}

function size(bytes: number): string {
  const KIB = 1024;
  const MIB = 1024 * KIB;
  if (bytes >= MIB) return `${(bytes / MIB).toFixed(1)} MB`;
  if (bytes >= KIB) return `${Math.ceil(bytes / KIB)} KB`;
  return `${bytes} bytes`;
}

/** Control characters become spaces; more than `maxChars` characters are cut and end with `…`. */
function bounded(value: string, maxChars: number): string {
  // deno-lint-ignore no-control-regex
  const chars = Array.from(value.replace(/[\u0000-\u001f\u007f-\u009f]/g, " "));
  return chars.length > maxChars ? `${chars.slice(0, maxChars).join("")}…` : chars.join("");
}
