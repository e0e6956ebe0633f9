#!/usr/bin/env node
// The `tessera` command: the compiled CLI from build/ when it was made from src/ as it is now (npm install builds it;
// loading it costs about half the CPU of compiling the TypeScript on the fly), else the TypeScript through tsx.
// It never builds itself: several commands started at once would race over build/.
if (require('../scripts/build-server').isServerBuilt()) {
  require('../build/cli/main.js').cliEntry();
} else {
  require('tsx/cjs');
  require('../src/cli/main.ts').cliEntry();
}
