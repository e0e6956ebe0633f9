/**
 * `boards export --all` and `boards import <dir>`: one board file per board. A file that fails does not stop the
 * others; every failure is reported at the end, and makes the exit status 1.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SingleBar } from 'cli-progress';
import { describeError, RemoteError, UsageError } from '../errors';
import type { ImportResult, TesseraApi } from './api';
import { boardFileNamesIn } from '../../boards/files/directory';
import { boardFileFromText } from './boardFile';
import { printJson, printLine } from './output';

interface Task<T> {
  /** The file the task writes or reads, as named in progress and failures. */
  file: string;
  /** Does the work: a line for people, and the result for `--json`. */
  run(): Promise<{ line: string; result: T }>;
}

interface Progress {
  succeeded(file: string, line: string): void;
  failed(file: string): void;
  stop(): void;
}

/** A bar on stderr for a terminal; otherwise a line per file on stdout (none for `--json`). */
function progressFor(total: number, json: boolean): Progress {
  if (process.stderr.isTTY) {
    const bar = new SingleBar({ stream: process.stderr, format: '{bar} {value}/{total} {file}', hideCursor: true });
    bar.start(total, 0, { file: '' });
    return { succeeded: (file) => bar.increment({ file }), failed: (file) => bar.increment({ file }), stop: () => bar.stop() };
  }
  if (json) return { succeeded: () => {}, failed: () => {}, stop: () => {} };
  return { succeeded: (_file, line) => printLine(line), failed: (file) => printLine(`failed ${file}`), stop: () => {} };
}

async function runAll<T>(tasks: Task<T>[], json: boolean, summary: (done: number) => string): Promise<number> {
  const progress = progressFor(tasks.length, json);
  const results: T[] = [];
  const failures: { file: string; error: unknown }[] = [];
  for (const task of tasks) {
    try {
      const { line, result } = await task.run();
      results.push(result);
      progress.succeeded(task.file, line);
    } catch (error) {
      failures.push({ file: task.file, error });
      progress.failed(task.file);
    }
  }
  progress.stop();
  if (json) {
    const failed = failures.map(({ file, error }) => ({ file, message: error instanceof Error ? error.message : String(error), code: error instanceof RemoteError ? error.code : null }));
    printJson({ results, failures: failed });
  } else printLine(summary(results.length));
  for (const { file, error } of failures) console.error(`tessera: ${file}: ${describeError(error)}`);
  return failures.length > 0 ? 1 : 0;
}

export async function exportAll(api: TesseraApi, dir: string, json: boolean): Promise<number> {
  const boards = await api.listBoards();
  mkdirSync(dir, { recursive: true });
  const tasks = boards.map((board): Task<{ name: string; boardId: string; file: string }> => {
    const file = path.join(dir, `${board.name}.yaml`);
    return {
      file: path.basename(file),
      async run() {
        writeFileSync(file, await api.exportBoard(board.id, 'yaml'));
        return { line: `exported ${board.name} to ${file}`, result: { name: board.name, boardId: board.id, file } };
      },
    };
  });
  return runAll(tasks, json, (done) => `Exported ${done} of ${boards.length} boards to ${dir}.`);
}

function boardFilesIn(dir: string): string[] {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`No such directory: ${dir}`);
  return boardFileNamesIn(dir);
}

export async function importAll(api: TesseraApi, dir: string, json: boolean): Promise<number> {
  const names = boardFilesIn(dir);
  const tasks = names.map((name): Task<{ file: string; result: string; name: string; boardId: string }> => ({
    file: name,
    async run() {
      const file = boardFileFromText(name, readFileSync(path.join(dir, name), 'utf8'));
      const { data, status } = await api.importBoard(file.text, file.format, { onConflict: 'replace' });
      const { boardId, name: boardName } = data as ImportResult;
      const result = status === 201 ? 'created' : 'updated';
      return { line: `${result} ${boardName} (${boardId}) from ${name}`, result: { file: name, result, name: boardName, boardId } };
    },
  }));
  return runAll(tasks, json, (done) => `Imported ${done} of ${names.length} files from ${dir}.`);
}
