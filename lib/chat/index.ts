// The terminal chat: the app (a view and a prompt source over the shared session controller) and the offline demo.
export { ChatApp, type ChatSetup, type ChatTerminal } from "./app.ts";
export { type Demo, DEMO_MODEL, prepareDemo } from "./demo.ts";
