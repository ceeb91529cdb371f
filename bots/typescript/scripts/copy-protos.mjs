// Copies the contract (../../proto/druids/v1/*.proto) into ./proto before
// `npm pack`, so the packed kit loads its .proto files without the repository.
import { cpSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const kit = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(kit, "..", "..", "proto", "druids");
if (!existsSync(source)) {
  console.error(`copy-protos: ${source} not found (run from a checkout of the druids repository)`);
  process.exit(1);
}
cpSync(source, join(kit, "proto", "druids"), { recursive: true });
