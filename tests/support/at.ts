// Indexing that fails the test with a clear message instead of yielding undefined (the tsconfig sets
// noUncheckedIndexedAccess, so `list[0].field` does not type-check without a guard).

/** The item at `index` of `list`; throws when there is none. */
export function at<T>(list: readonly T[], index: number): T {
  if (index < 0 || index >= list.length)
    throw new Error(`Expected an item at index ${index}, but the list has ${list.length}`);
  return list[index] as T;
}
