import { describe, expect, it } from "vitest";
import { buildToolRegistry, createRegistry } from "../../lib/tools/index.ts";
import { type ObjectSchema, validateArguments } from "../../lib/tools/schema.ts";
import type { Tool } from "../../lib/tools/types.ts";
import { testConfig } from "./helpers.ts";

describe("buildToolRegistry", () => {
  it("registers the spec §9 tools sorted by name", () => {
    const registry = buildToolRegistry(testConfig(), { noTools: false });
    const names = [
      "apply_patch",
      "bash",
      "edit",
      "exec",
      "glob",
      "grep",
      "list",
      "read",
      "read_skill",
      "web_fetch",
      "write",
    ];
    expect(registry.list().map((tool) => tool.name)).toEqual(names);
    expect(registry.schemas().map((schema) => schema.name)).toEqual(names);
    expect(registry.get("read")?.description).toBe("Read a bounded UTF-8 file inside the workspace");
    expect(registry.get("exec_missing")).toBeUndefined();
  });

  it("adds web_search for a searxng backend and drops the web tools when web is disabled", () => {
    const config = testConfig();
    const searxng = {
      ...config,
      web: { ...config.web, search: "searxng" as const, searxng_url: "http://127.0.0.1:9/" },
    };
    expect(buildToolRegistry(searxng, { noTools: false }).get("web_search")?.name).toBe("web_search");
    const offline = { ...config, web: { ...config.web, enabled: false } };
    const names = buildToolRegistry(offline, { noTools: false }).list().map((tool) => tool.name);
    expect(names).toEqual([
      "apply_patch",
      "bash",
      "edit",
      "exec",
      "glob",
      "grep",
      "list",
      "read",
      "read_skill",
      "write",
    ]);
  });

  it("offers apply_patch on the Responses wire and edit everywhere; provider.edit_tools picks the set", () => {
    const config = testConfig();
    const names = (edit_tools: "auto" | "edit" | "apply_patch" | "both", wire_api: "responses" | "chat") =>
      buildToolRegistry({ ...config, provider: { ...config.provider, edit_tools, wire_api } }, { noTools: false })
        .list()
        .map((tool) => tool.name)
        .filter((name) => name === "edit" || name === "apply_patch");
    expect(names("auto", "responses")).toEqual(["apply_patch", "edit"]);
    expect(names("auto", "chat")).toEqual(["edit"]);
    expect(names("edit", "responses")).toEqual(["edit"]);
    expect(names("apply_patch", "chat")).toEqual(["apply_patch"]);
    expect(names("both", "chat")).toEqual(["apply_patch", "edit"]);
  });

  it("redacts every known secret from each tool's output, progress and approval texts", async () => {
    const { writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { makeSandbox } = await import("./helpers.ts");
    const box = makeSandbox();
    try {
      const key = "sk-registry-secret-123";
      const config = testConfig();
      config.secrets = { ...config.secrets, values: [key] };
      writeFileSync(join(box.workspace, "k.txt"), `key=${key}`);
      const registry = buildToolRegistry(config, { noTools: false });
      const read = registry.get("read")!.prepare({ path: "k.txt" }, { workspace: box.workspace, config });
      if ("error" in read) throw new Error(read.error);
      const outcome = await read.run({
        workspace: box.workspace,
        config,
        signal: new AbortController().signal,
        progress: () => {},
      });
      expect(JSON.parse(outcome.output).content).toBe("key=[REDACTED]");
      const progress: string[] = [];
      const bash = registry.get("bash")!.prepare({ command: `echo ${key}` }, { workspace: box.workspace, config });
      if ("error" in bash) throw new Error(bash.error);
      expect(bash.summary).toBe("Run with /bin/bash -c: echo [REDACTED]");
      expect(bash.detail).toBe("echo [REDACTED]");
      const ran = await bash.run({
        workspace: box.workspace,
        config,
        signal: new AbortController().signal,
        progress: (text) => progress.push(text),
      });
      expect(ran.output).not.toContain(key);
      for (const line of progress) expect(line).not.toContain(key);
    } finally {
      box.cleanup();
    }
  });

  it("registers nothing for no_tools", () => {
    const registry = buildToolRegistry(testConfig(), { noTools: true });
    expect(registry.list()).toEqual([]);
    expect(registry.schemas()).toEqual([]);
  });

  it("gives every tool an object schema with required and additionalProperties:false", () => {
    for (const schema of buildToolRegistry(testConfig(), { noTools: false }).schemas()) {
      expect(Object.keys(schema)).toEqual(["name", "description", "parameters"]);
      expect(schema.parameters).toMatchObject({ type: "object", additionalProperties: false });
      const parameters = schema.parameters as ObjectSchema;
      expect(Array.isArray(parameters.required)).toBe(true);
      for (const key of parameters.required) expect(Object.keys(parameters.properties)).toContain(key);
      // The schema the model sees is the one that validates: JSON round trip changes nothing.
      expect(JSON.parse(JSON.stringify(schema.parameters))).toEqual(schema.parameters);
      expect(validateArguments(parameters, { surely_unknown: 1 }).ok).toBe(false);
    }
  });

  it("takes limits from the configuration", () => {
    const registry = buildToolRegistry(testConfig({ max_timeout_seconds: 77, command_timeout_seconds: 7 }), {
      noTools: false,
    });
    const bash = registry.get("bash")!;
    expect(bash.parameters).toMatchObject({ properties: { timeout_seconds: { maximum: 77 } } });
    expect(bash.prepare({ command: "ls", timeout_seconds: 78 }, { workspace: "/tmp", config: testConfig() })).toEqual({
      error: "timeout_seconds must be at most 77",
    });
  });

  it("sorts any tools by code unit and refuses duplicates", () => {
    const fake = (name: string): Tool => ({ name, description: "", parameters: {}, prepare: () => ({ error: "x" }) });
    expect(
      createRegistry([fake("web_fetch"), fake("bash"), fake("exec"), fake("read_skill"), fake("read")]).list().map((
        t,
      ) => t.name),
    ).toEqual([
      "bash",
      "exec",
      "read",
      "read_skill",
      "web_fetch",
    ]);
    expect(() => createRegistry([fake("b"), fake("a"), fake("b"), fake("c")])).toThrow(
      /^Tool registry has duplicate tool names: b$/,
    );
  });
});
