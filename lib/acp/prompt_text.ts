// An ACP prompt (content blocks) as the text prompt the engine takes. scv accepts text and resource links (which
// every ACP agent must); images, audio and embedded resources are refused, since initialize does not offer them.
import { type ContentBlock, RequestError } from "@agentclientprotocol/sdk";

export function promptText(blocks: ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "resource_link":
        // The model reads the file itself: the link names it.
        parts.push(block.name && block.name !== block.uri ? `[${block.name}](${block.uri})` : block.uri);
        break;
      default:
        throw RequestError.invalidParams(
          { type: block.type },
          `scv accepts text and resource_link prompt content, not ${block.type}`,
        );
    }
  }
  const text = parts.join("\n");
  if (text.trim() === "") throw RequestError.invalidParams(undefined, "the prompt is empty");
  return text;
}
