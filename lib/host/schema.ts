// The strict validator moved to lib/util/schema.ts (the agent protocol shares it); this keeps the host's imports.
export * from "../util/schema.ts";
