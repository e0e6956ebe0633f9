/**
 * The `tessera` command (bin/tessera.js): local admin commands on the local database, and `tessera boards …` on a
 * running instance over HTTP. Exit status 0 on success, 1 on failure, 2 on a usage error; an error is one line on
 * stderr, `tessera: <reason>`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { addAdminCommands, runCli } from './admin';
import { describeError, exitStatus, exitStatusOf, oneLine } from './errors';
import { addBackupCommands } from './backup';
import { addSecretCommands } from './secrets';
import { addConvertCommand } from './convert';
import { addDiscoverCommand } from './discover';
import { addBoardCommands, addFleetCommands } from './remote/commands';

export { runCli };

const version: string = JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')).version;

const helpAfter = `
Local admin commands (users, groups, api-keys, permissions, migrate, backup, restore, secrets) work on the local
database named by DATABASE_URL, or the embedded one in DATA_DIR (default ./data; stop the server first: the
embedded database allows one process at a time), and print JSON. \`boards\` commands work on a running instance over HTTP with an API key;
\`convert\` works on files, or reads a running Homarr v1 over its API (\`convert homarr --url\`); \`discover docker\`
reads container labels at DOCKER_HOST, \`discover kubernetes\` the annotations of Ingresses, IngressRoutes and HTTPRoutes,
and writes board files (or, with --plan, shows their plan).
Run \`tessera <command> --help\` for a command's arguments and options.`;

function buildProgram(setStatus: (status: number) => void): Command {
  const program = new Command('tessera')
    .description('Tessera: a self-hosted dashboard board service')
    .version(version)
    .addHelpText('after', helpAfter)
    // Commander's own usage errors become exceptions handled in runProgram, and print as one line.
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(`tessera: ${oneLine(text.replace(/^error: /, ''))}\n`) });

  addAdminCommands(program, async (task) => {
    // Loaded on use: the database drivers take a while to load, and no other command needs them.
    const { withLocalDatabase } = require('./localDatabase') as typeof import('./localDatabase');
    const result = await withLocalDatabase(task);
    console.log(JSON.stringify(result, null, 2));
    setStatus(exitStatus.ok);
  }, async (work) => {
    console.log(JSON.stringify(await work(), null, 2));
    setStatus(exitStatus.ok);
  });
  addBackupCommands(program, async (work) => {
    console.log(JSON.stringify(await work(), null, 2));
    setStatus(exitStatus.ok);
  });
  addSecretCommands(program, async (work) => {
    console.log(JSON.stringify(await work(), null, 2));
    setStatus(exitStatus.ok);
  });
  addBoardCommands(program, async (work) => setStatus(await work()));
  addFleetCommands(program, async (work) => setStatus(await work()));
  addConvertCommand(program, async (work) => setStatus(await work()));
  addDiscoverCommand(program, async (work) => setStatus(await work()));
  return program;
}

function statusOfCommanderExit(error: CommanderError): number {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return exitStatus.ok;
  // Anything else is a usage error, already printed by commander (`commander.help` is help shown for a missing
  // subcommand).
  return exitStatus.usage;
}

/** Runs the command line (without node and script) and answers the exit status. */
export async function runProgram(argv: string[]): Promise<number> {
  let status: number = exitStatus.ok;
  const program = buildProgram((value) => (status = value));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return status;
  } catch (error) {
    if (error instanceof CommanderError) return statusOfCommanderExit(error);
    console.error(`tessera: ${describeError(error)}`);
    return exitStatusOf(error);
  }
}

/** Exits once what was written to stdout and stderr is out (writes to pipes can be asynchronous). */
function exitAfterOutput(status: number): void {
  process.exitCode = status;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(status)));
}

/** Runs the CLI with process.argv and exits with its status. */
export function cliEntry(): void {
  runProgram(process.argv.slice(2)).then(exitAfterOutput, (error) => {
    console.error(`tessera: ${describeError(error)}`);
    exitAfterOutput(exitStatus.failure);
  });
}

if (require.main === module) cliEntry();
