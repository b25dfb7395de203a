#!/bin/sh
# The demo's "test suite": three checks on src/greet.js.
set -e
grep -q "export function greet" src/greet.js && echo "ok 1 - greet is exported"
grep -q 'Hello, ${name}!' src/greet.js && echo "ok 2 - greeting text"
test -f README.md && echo "ok 3 - README present"
