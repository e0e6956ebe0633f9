/**
 * `npm start`: the server from build/, compiled from src/ by scripts/build-server.js (again whenever src/ changed),
 * run in this very process. package.json starts it with `exec node …`, so the process `npm start` started is the
 * server itself and a SIGTERM or SIGINT sent to it stops the server gracefully at once (no wrapper keeps it running;
 * RUN-2).
 */
'use strict';
// Node 22.1 and later keep the compiled code of the modules on disk for the next start (not available on Node 20).
require('node:module').enableCompileCache?.();
const { ensureServerBuilt } = require('./build-server');

const built = ensureServerBuilt();
if (built) process.stderr.write(`compiled src/ to build/ (${built.files} modules, ${built.ms} ms)\n`);
require('../build/main.js');
