// The agent protocol moved to lib/protocol (the server and its clients share it; lib/server imports it from
// there). This path stays for the tests that import it.
export * from "../protocol/index.ts";
