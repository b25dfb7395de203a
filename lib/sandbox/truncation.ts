import type { ContentItem } from "./types.ts";

export function truncateItems(items: ContentItem[], _budgetTokens: number): ContentItem[] {
  return items;
}

export function middleTruncate(text: string, _budgetTokens: number): string {
  return text;
}
