import { ConfigError } from '../config/config';
import { ApiError } from '../core/errors';

/** Exit statuses of the `tessera` command. */
export const exitStatus = { ok: 0, failure: 1, usage: 2 } as const;

/** The command was called wrongly (unknown name, missing argument, no instance URL…): exit status 2. */
export class UsageError extends Error {}

/**
 * An error answered by a Tessera server (`{message, code, data}`), shown as `<message>[: <issues>] (<CODE>)`, or,
 * with `details` (CLI-9: the problems of a set in its files' terms), as `<message> (<CODE>)` and one line per detail.
 */
export class RemoteError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
    readonly status: number,
    readonly data: Record<string, unknown> = {},
    readonly details: readonly string[] = [],
  ) {
    super(message);
  }
}

/** What explains an error, without the `tessera: ` prefix: one line, and then its details (CLI-9) one per line. */
export function describeError(error: unknown): string {
  if (error instanceof RemoteError || error instanceof ApiError) {
    const details = error instanceof RemoteError ? error.details.map(oneLine) : [];
    const said = error.message + (details.length > 0 ? '' : issuesText(error.data));
    return [error.code ? `${said} (${error.code})` : said, ...details].join('\n');
  }
  if (error instanceof Error) return oneLine(error.message);
  return oneLine(String(error));
}

/**
 * The problems of a validation failure (`data.problems`, ERR-6; else `data.issues`), `: <field> <message>; …`, with
 * the request part of their path left out.
 */
function issuesText(data: unknown): string {
  const listed = data as { issues?: unknown; problems?: unknown } | undefined;
  const issues = Array.isArray(listed?.problems) ? listed.problems : listed?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return '';
  const described = issues.map((issue: { instancePath?: string; message?: string }) => {
    const field = (issue.instancePath ?? '').replace(/^\/(requestBody|body|params|query)(\/|$)/, '').replace(/^\//, '');
    return oneLine(`${field} ${issue.message ?? ''}`);
  });
  return `: ${described.join('; ')}`;
}

export function exitStatusOf(error: unknown): number {
  return error instanceof UsageError || error instanceof ConfigError ? exitStatus.usage : exitStatus.failure;
}

export function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, ' ');
}
