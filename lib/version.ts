/** The scv version; kept equal to package.json's by tests/version.test.ts. */
export const VERSION = "0.1.0";
