// Paths that probably hold credentials: reading them needs approval even under `on-risk`.

/** True when a lowercased component of `path` looks like a secret (spec §9). */
export function isSecretLikePath(path: string): boolean {
  return path.split("/").some((component) => isSecretLikeComponent(component.toLowerCase()));
}

function isSecretLikeComponent(name: string): boolean {
  return (
    name === ".env" ||
    name.startsWith(".env.") ||
    name.includes("credential") ||
    name.includes("private_key") ||
    name.endsWith(".pem") ||
    name.endsWith(".key")
  );
}
