// Instructions of folders below the working folder join the context when a tool first touches a file under them
// (once per folder per session), each file bounded by `project_doc_max_bytes` on its own.
import { stat } from "node:fs/promises";
import { chain, folderFile, foldersBelow, type InstructionFile, type InstructionSources } from "./instruction_files.ts";

export class NestedInstructions {
  readonly #sources: InstructionSources;
  /** Folders already looked at: the start's chain, and every folder a touch has reached. */
  readonly #seen: Set<string>;

  constructor(sources: InstructionSources) {
    this.#sources = sources;
    this.#seen = new Set(chain(sources.root, sources.workingFolder));
  }

  /** The files that join because a tool touched `paths` (absolute), in folder order; each folder at most once. */
  async touched(paths: readonly string[]): Promise<InstructionFile[]> {
    const joined: InstructionFile[] = [];
    for (const path of paths) {
      const isFolder = await stat(path).then((info) => info.isDirectory(), () => false);
      for (const folder of foldersBelow(this.#sources.workingFolder, path, isFolder)) {
        if (this.#seen.has(folder)) continue;
        this.#seen.add(folder);
        const file = await folderFile(folder, this.#sources, "nested", this.#sources.maxBytes);
        if (file !== undefined) joined.push(file);
      }
    }
    return joined;
  }
}
