// TODO: support more than one name
export function greet(name) {
  return `Hello, ${name}!`;
}
