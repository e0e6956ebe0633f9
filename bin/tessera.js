#!/usr/bin/env node
// The `tessera` command: runs the TypeScript CLI through tsx (a runtime dependency).
require('tsx/cjs');
require('../src/cli/main.ts').cliEntry();
