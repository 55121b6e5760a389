// Runs a WASI program under Node's own WASI support (`node:wasi`), with no runtime to
// download: `node core/replay/wasi/run.mjs PROGRAM.wasm ARGS...`. The current directory
// is preopened as the program's `.`, so relative paths name the same files as they would
// for a native build run there. Exits with the program's exit code.
import { readFile } from "node:fs/promises";
import { argv, exit } from "node:process";
import { WASI } from "node:wasi";

const [program, ...args] = argv.slice(2);
if (program === undefined) {
  console.error("usage: node run.mjs PROGRAM.wasm ARGS...");
  exit(2);
}
const wasi = new WASI({
  version: "preview1",
  args: [program, ...args],
  preopens: { ".": "." },
  returnOnExit: true,
});
const module = await WebAssembly.compile(await readFile(program));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
exit(wasi.start(instance));
