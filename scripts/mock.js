/**
 * `npm run mock`: Prism's mock of generated/openapi.json on 127.0.0.1, port 4010 unless `--port <n>` (`-p <n>`,
 * `--port=<n>`) or MOCK_PORT says otherwise (the flag wins); `--host` likewise. Other arguments go to Prism as they are
 * (`npm run mock -- --port 4020 --dynamic`). Prism runs in this very process, so stopping it stops the mock.
 */
'use strict';
const path = require('node:path');

const defaults = { port: process.env.MOCK_PORT || '4010', host: process.env.MOCK_HOST || '127.0.0.1' };

/** `{port, host, rest}` from the arguments after `npm run mock --`. */
function mockArguments(argv, env = defaults) {
  const options = { port: env.port, host: env.host };
  const rest = [];
  for (let i = 0; i < argv.length; i += 1) {
    const argument = argv[i];
    const match = /^(?:--(port|host)|-(p|h))(?:=(.*))?$/.exec(argument);
    if (!match) {
      rest.push(argument);
      continue;
    }
    const name = match[1] ?? (match[2] === 'p' ? 'port' : 'host');
    const value = match[3] ?? argv[++i];
    if (value === undefined || value === '') throw new Error(`${argument} needs a value`);
    options[name] = value;
  }
  if (!/^\d+$/.test(options.port) || Number(options.port) > 65535) throw new Error(`not a port: ${options.port} (use --port <n> or MOCK_PORT)`);
  return { ...options, rest };
}

if (require.main === module) {
  let parsed;
  try {
    parsed = mockArguments(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`npm run mock: ${error.message}\n`);
    process.exit(2);
  }
  const root = path.resolve(__dirname, '..');
  const prism = require.resolve('@stoplight/prism-cli/dist/index.js', { paths: [root] });
  process.argv = [process.argv[0], prism, 'mock', path.join(root, 'generated/openapi.json'), '--host', parsed.host, '--port', parsed.port, ...parsed.rest];
  require(prism);
}

module.exports = { mockArguments };
