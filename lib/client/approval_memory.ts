// "Always for this session" approvals (chat and acp), remembered per tool and normalized argument key: object keys are
// sorted, values compared exactly. Strings are never normalized: whitespace inside a quoted shell argument or
// a file's content changes what the call does, so `echo "a  b"` is not approved by approving `echo "a b"`.

function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(record).sort().map((key) => [key, normalize(record[key])]));
  }
  return value;
}

export function approvalKey(name: string, args: unknown): string {
  return `${name}\u0000${JSON.stringify(normalize(args ?? {}))}`;
}

export class ApprovalMemory {
  #keys = new Set<string>();

  remember(name: string, args: unknown): void {
    this.#keys.add(approvalKey(name, args));
  }

  allows(name: string, args: unknown): boolean {
    return this.#keys.has(approvalKey(name, args));
  }

  get size(): number {
    return this.#keys.size;
  }

  clear(): void {
    this.#keys.clear();
  }
}
